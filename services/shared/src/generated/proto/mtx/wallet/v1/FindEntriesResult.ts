// Original file: proto/wallet/v1/wallet.proto

import type { FoundEntry as _mtx_wallet_v1_FoundEntry, FoundEntry__Output as _mtx_wallet_v1_FoundEntry__Output } from '../../../mtx/wallet/v1/FoundEntry';

export interface FindEntriesResult {
  'items'?: (_mtx_wallet_v1_FoundEntry)[];
}

export interface FindEntriesResult__Output {
  'items': (_mtx_wallet_v1_FoundEntry__Output)[];
}
