// Original file: proto/payments/v1/payments.proto

import type { Long } from '@grpc/proto-loader';

export interface ListAssetsRequest {
  'amount_eur_cents'?: (number | string | Long);
}

export interface ListAssetsRequest__Output {
  'amount_eur_cents': (number);
}
