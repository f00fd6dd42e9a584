// Original file: proto/connector/v1/connector.proto


export interface PingRequest {
  'account_id'?: (string);
}

export interface PingRequest__Output {
  'account_id': (string);
}
