// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface MovementResult {
  'entry_id'?: (string);
  'applied'?: (boolean);
  'replay'?: (boolean);
  'balance_eur_cents'?: (number | string | Long);
  'held_eur_cents'?: (number | string | Long);
  'sequence'?: (number | string | Long);
  'balance_delta_eur_cents'?: (number | string | Long);
  'held_delta_eur_cents'?: (number | string | Long);
}

export interface MovementResult__Output {
  'entry_id': (string);
  'applied': (boolean);
  'replay': (boolean);
  'balance_eur_cents': (number);
  'held_eur_cents': (number);
  'sequence': (number);
  'balance_delta_eur_cents': (number);
  'held_delta_eur_cents': (number);
}
