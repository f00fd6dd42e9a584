// Original file: proto/billing/v1/billing.proto

import type { UpcomingItem as _mtx_billing_v1_UpcomingItem, UpcomingItem__Output as _mtx_billing_v1_UpcomingItem__Output } from '../../../mtx/billing/v1/UpcomingItem';
import type { Long } from '@grpc/proto-loader';

export interface Upcoming {
  'items'?: (_mtx_billing_v1_UpcomingItem)[];
  'total_eur_cents'?: (number | string | Long);
}

export interface Upcoming__Output {
  'items': (_mtx_billing_v1_UpcomingItem__Output)[];
  'total_eur_cents': (number);
}
