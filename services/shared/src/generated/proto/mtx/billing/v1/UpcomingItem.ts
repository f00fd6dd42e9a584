// Original file: proto/billing/v1/billing.proto

import type { Long } from '@grpc/proto-loader';

export interface UpcomingItem {
  'when'?: (string);
  'amount_eur_cents'?: (number | string | Long);
  'kind'?: (string);
  'label'?: (string);
}

export interface UpcomingItem__Output {
  'when': (string);
  'amount_eur_cents': (number);
  'kind': (string);
  'label': (string);
}
