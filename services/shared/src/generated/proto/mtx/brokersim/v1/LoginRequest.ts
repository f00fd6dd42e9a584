// Original file: proto/brokersim/v1/brokersim.proto


export interface LoginRequest {
  'server'?: (string);
  'login'?: (string);
  'password'?: (string);
}

export interface LoginRequest__Output {
  'server': (string);
  'login': (string);
  'password': (string);
}
