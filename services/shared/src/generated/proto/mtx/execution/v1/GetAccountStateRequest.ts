// Original file: proto/execution/v1/execution.proto


export interface GetAccountStateRequest {
  'customer_id'?: (string);
  'account_id'?: (string);
}

export interface GetAccountStateRequest__Output {
  'customer_id': (string);
  'account_id': (string);
}
