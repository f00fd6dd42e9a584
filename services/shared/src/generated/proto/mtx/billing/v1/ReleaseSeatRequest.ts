// Original file: proto/billing/v1/billing.proto


export interface ReleaseSeatRequest {
  'customer_id'?: (string);
  'account_id'?: (string);
}

export interface ReleaseSeatRequest__Output {
  'customer_id': (string);
  'account_id': (string);
}
