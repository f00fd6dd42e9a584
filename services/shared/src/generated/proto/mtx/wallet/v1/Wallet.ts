// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface Wallet {
  'customer_id'?: (string);
  'balance_eur_cents'?: (number | string | Long);
  'held_eur_cents'?: (number | string | Long);
  'sequence'?: (number | string | Long);
  'balance_cap_eur_cents'?: (number | string | Long);
}

export interface Wallet__Output {
  'customer_id': (string);
  'balance_eur_cents': (number);
  'held_eur_cents': (number);
  'sequence': (number);
  'balance_cap_eur_cents': (number);
}
