// Original file: proto/execution/v1/execution.proto


export interface DeleteAccountRequest {
  'customer_id'?: (string);
  'account_id'?: (string);
}

export interface DeleteAccountRequest__Output {
  'customer_id': (string);
  'account_id': (string);
}
