// Original file: proto/connector/v1/connector.proto


export interface StateRequest {
  'account_id'?: (string);
}

export interface StateRequest__Output {
  'account_id': (string);
}
