// Original file: proto/execution/v1/execution.proto


export interface SetAccountBillingStatusRequest {
  'customer_id'?: (string);
  'account_id'?: (string);
  'status'?: (string);
}

export interface SetAccountBillingStatusRequest__Output {
  'customer_id': (string);
  'account_id': (string);
  'status': (string);
}
