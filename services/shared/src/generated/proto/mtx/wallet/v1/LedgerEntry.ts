// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface LedgerEntry {
  'entry_id'?: (string);
  'sequence'?: (number | string | Long);
  'kind'?: (string);
  'reason'?: (string);
  'reference'?: (string);
  'amount_eur_cents'?: (number | string | Long);
  'balance_delta_eur_cents'?: (number | string | Long);
  'held_delta_eur_cents'?: (number | string | Long);
  'balance_after_eur_cents'?: (number | string | Long);
  'held_after_eur_cents'?: (number | string | Long);
  'created_at'?: (string);
}

export interface LedgerEntry__Output {
  'entry_id': (string);
  'sequence': (number);
  'kind': (string);
  'reason': (string);
  'reference': (string);
  'amount_eur_cents': (number);
  'balance_delta_eur_cents': (number);
  'held_delta_eur_cents': (number);
  'balance_after_eur_cents': (number);
  'held_after_eur_cents': (number);
  'created_at': (string);
}
