// Original file: proto/billing/v1/billing.proto

import type { Long } from '@grpc/proto-loader';

export interface Server {
  'id'?: (string);
  'plan'?: (string);
  'label'?: (string);
  'price_eur_cents'?: (number | string | Long);
  'status'?: (string);
  'paid_until'?: (string);
  'cancel_at_period_end'?: (boolean);
  'grace_ends_at'?: (string);
  'created_at'?: (string);
  '_grace_ends_at'?: "grace_ends_at";
}

export interface Server__Output {
  'id': (string);
  'plan': (string);
  'label': (string);
  'price_eur_cents': (number);
  'status': (string);
  'paid_until': (string);
  'cancel_at_period_end': (boolean);
  'grace_ends_at'?: (string);
  'created_at': (string);
  '_grace_ends_at'?: "grace_ends_at";
}
