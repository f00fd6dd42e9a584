// Original file: proto/billing/v1/billing.proto


export interface Seat {
  'id'?: (string);
  'paid_until'?: (string);
  'status'?: (string);
  'account_id'?: (string);
  'bonus'?: (boolean);
  'grace_ends_at'?: (string);
  '_account_id'?: "account_id";
  '_grace_ends_at'?: "grace_ends_at";
}

export interface Seat__Output {
  'id': (string);
  'paid_until': (string);
  'status': (string);
  'account_id'?: (string);
  'bonus': (boolean);
  'grace_ends_at'?: (string);
  '_account_id'?: "account_id";
  '_grace_ends_at'?: "grace_ends_at";
}
