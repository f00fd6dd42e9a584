// Original file: proto/billing/v1/billing.proto


export interface GetUpcomingRequest {
  'customer_id'?: (string);
}

export interface GetUpcomingRequest__Output {
  'customer_id': (string);
}
