// Original file: proto/billing/v1/billing.proto


export interface CancelServerRequest {
  'customer_id'?: (string);
  'server_id'?: (string);
}

export interface CancelServerRequest__Output {
  'customer_id': (string);
  'server_id': (string);
}
