// Original file: proto/wallet/v1/wallet.proto

import type { LedgerEntry as _mtx_wallet_v1_LedgerEntry, LedgerEntry__Output as _mtx_wallet_v1_LedgerEntry__Output } from '../../../mtx/wallet/v1/LedgerEntry';

export interface ListEntriesResponse {
  'entries'?: (_mtx_wallet_v1_LedgerEntry)[];
}

export interface ListEntriesResponse__Output {
  'entries': (_mtx_wallet_v1_LedgerEntry__Output)[];
}
