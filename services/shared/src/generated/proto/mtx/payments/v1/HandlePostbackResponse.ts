// Original file: proto/payments/v1/payments.proto

import type { Long } from '@grpc/proto-loader';

export interface HandlePostbackResponse {
  'outcome'?: (string);
  'topup_id'?: (number | string | Long);
  'credited_eur_cents'?: (number | string | Long);
  'customer_id'?: (string);
  '_topup_id'?: "topup_id";
}

export interface HandlePostbackResponse__Output {
  'outcome': (string);
  'topup_id'?: (number);
  'credited_eur_cents': (number);
  'customer_id': (string);
  '_topup_id'?: "topup_id";
}
