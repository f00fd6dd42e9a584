// Original file: proto/brokersim/v1/brokersim.proto


export interface LogoutResponse {
  'logged_out'?: (boolean);
}

export interface LogoutResponse__Output {
  'logged_out': (boolean);
}
