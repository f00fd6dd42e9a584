// Original file: proto/execution/v1/execution.proto


export interface GetAccountRequest {
  'customer_id'?: (string);
  'account_id'?: (string);
}

export interface GetAccountRequest__Output {
  'customer_id': (string);
  'account_id': (string);
}
