// Original file: proto/billing/v1/billing.proto


export interface GetSubscriptionRequest {
  'customer_id'?: (string);
}

export interface GetSubscriptionRequest__Output {
  'customer_id': (string);
}
