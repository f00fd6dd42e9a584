// Original file: proto/brokersim/v1/brokersim.proto


export interface SessionRequest {
  'session_id'?: (string);
}

export interface SessionRequest__Output {
  'session_id': (string);
}
