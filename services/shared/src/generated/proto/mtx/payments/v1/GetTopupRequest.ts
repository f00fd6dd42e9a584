// Original file: proto/payments/v1/payments.proto

import type { Long } from '@grpc/proto-loader';

export interface GetTopupRequest {
  'customer_id'?: (string);
  'id'?: (number | string | Long);
}

export interface GetTopupRequest__Output {
  'customer_id': (string);
  'id': (number);
}
