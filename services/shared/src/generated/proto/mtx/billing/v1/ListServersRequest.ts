// Original file: proto/billing/v1/billing.proto


export interface ListServersRequest {
  'customer_id'?: (string);
}

export interface ListServersRequest__Output {
  'customer_id': (string);
}
