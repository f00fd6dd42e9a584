// Original file: proto/execution/v1/execution.proto


export interface ListAccountsRequest {
  'customer_id'?: (string);
}

export interface ListAccountsRequest__Output {
  'customer_id': (string);
}
