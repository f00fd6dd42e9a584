// Original file: proto/wallet/v1/wallet.proto

import type { EntryKey as _mtx_wallet_v1_EntryKey, EntryKey__Output as _mtx_wallet_v1_EntryKey__Output } from '../../../mtx/wallet/v1/EntryKey';

export interface FindEntriesRequest {
  'entries'?: (_mtx_wallet_v1_EntryKey)[];
}

export interface FindEntriesRequest__Output {
  'entries': (_mtx_wallet_v1_EntryKey__Output)[];
}
