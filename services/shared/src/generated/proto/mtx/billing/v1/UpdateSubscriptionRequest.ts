// Original file: proto/billing/v1/billing.proto


export interface UpdateSubscriptionRequest {
  'customer_id'?: (string);
  'cancel_at_period_end'?: (boolean);
  '_cancel_at_period_end'?: "cancel_at_period_end";
}

export interface UpdateSubscriptionRequest__Output {
  'customer_id': (string);
  'cancel_at_period_end'?: (boolean);
  '_cancel_at_period_end'?: "cancel_at_period_end";
}
