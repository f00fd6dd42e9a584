// Original file: proto/payments/v1/payments.proto

import type { Long } from '@grpc/proto-loader';

export interface AssetRow {
  'asset_code'?: (string);
  'asset_name'?: (string);
  'blockchain_code'?: (string);
  'blockchain_name'?: (string);
  'is_evm'?: (boolean);
  'is_stable'?: (boolean);
  'amount'?: (string);
  'decimals'?: (number);
  'display_decimals'?: (number);
  'min_amount_eur_cents'?: (number | string | Long);
}

export interface AssetRow__Output {
  'asset_code': (string);
  'asset_name': (string);
  'blockchain_code': (string);
  'blockchain_name': (string);
  'is_evm': (boolean);
  'is_stable': (boolean);
  'amount': (string);
  'decimals': (number);
  'display_decimals': (number);
  'min_amount_eur_cents': (number);
}
