// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface DebitEntry {
  'entry_id'?: (string);
  'amount_eur_cents'?: (number | string | Long);
  'reason'?: (string);
  'reference'?: (string);
}

export interface DebitEntry__Output {
  'entry_id': (string);
  'amount_eur_cents': (number);
  'reason': (string);
  'reference': (string);
}
