// Original file: proto/payments/v1/payments.proto


export interface ListPendingTopupsRequest {
  'customer_id'?: (string);
}

export interface ListPendingTopupsRequest__Output {
  'customer_id': (string);
}
