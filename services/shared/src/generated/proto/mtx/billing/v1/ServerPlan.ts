// Original file: proto/billing/v1/billing.proto

import type { Long } from '@grpc/proto-loader';

export interface ServerPlan {
  'plan'?: (string);
  'price_eur_cents'?: (number | string | Long);
}

export interface ServerPlan__Output {
  'plan': (string);
  'price_eur_cents': (number);
}
