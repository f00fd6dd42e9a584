// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface AuditReport {
  'ok'?: (boolean);
  'wallets_checked'?: (number | string | Long);
  'entries_checked'?: (number | string | Long);
  'breaches'?: (string)[];
}

export interface AuditReport__Output {
  'ok': (boolean);
  'wallets_checked': (number);
  'entries_checked': (number);
  'breaches': (string)[];
}
