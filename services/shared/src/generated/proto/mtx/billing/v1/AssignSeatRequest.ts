// Original file: proto/billing/v1/billing.proto


export interface AssignSeatRequest {
  'customer_id'?: (string);
  'account_id'?: (string);
  'label'?: (string);
  'bonus'?: (boolean);
}

export interface AssignSeatRequest__Output {
  'customer_id': (string);
  'account_id': (string);
  'label': (string);
  'bonus': (boolean);
}
