// Original file: proto/payments/v1/payments.proto

import type { Long } from '@grpc/proto-loader';

export interface CreateTopupRequest {
  'customer_id'?: (string);
  'amount_eur_cents'?: (number | string | Long);
  'asset_code'?: (string);
  'blockchain_code'?: (string);
  'is_evm'?: (boolean);
  '_is_evm'?: "is_evm";
}

export interface CreateTopupRequest__Output {
  'customer_id': (string);
  'amount_eur_cents': (number);
  'asset_code': (string);
  'blockchain_code': (string);
  'is_evm'?: (boolean);
  '_is_evm'?: "is_evm";
}
