// Original file: proto/payments/v1/payments.proto

import type { Long } from '@grpc/proto-loader';

export interface Topup {
  'id'?: (number | string | Long);
  'customer_id'?: (string);
  'status'?: (string);
  'amount_eur_cents'?: (number | string | Long);
  'credited_eur_cents'?: (number | string | Long);
  'deposit_address'?: (string);
  'deposit_amount'?: (string);
  'deposit_amount_decimal'?: (string);
  'asset_code'?: (string);
  'blockchain_code'?: (string);
  'expires_at'?: (string);
  'created_at'?: (string);
  'is_evm'?: (boolean);
  'payment_uri'?: (string);
  'decimals'?: (number);
  '_payment_uri'?: "payment_uri";
}

export interface Topup__Output {
  'id': (number);
  'customer_id': (string);
  'status': (string);
  'amount_eur_cents': (number);
  'credited_eur_cents': (number);
  'deposit_address': (string);
  'deposit_amount': (string);
  'deposit_amount_decimal': (string);
  'asset_code': (string);
  'blockchain_code': (string);
  'expires_at': (string);
  'created_at': (string);
  'is_evm': (boolean);
  'payment_uri'?: (string);
  'decimals': (number);
  '_payment_uri'?: "payment_uri";
}
