// Original file: proto/wallet/v1/wallet.proto

import type { CreditManyItem as _mtx_wallet_v1_CreditManyItem, CreditManyItem__Output as _mtx_wallet_v1_CreditManyItem__Output } from '../../../mtx/wallet/v1/CreditManyItem';

export interface CreditManyResult {
  'items'?: (_mtx_wallet_v1_CreditManyItem)[];
}

export interface CreditManyResult__Output {
  'items': (_mtx_wallet_v1_CreditManyItem__Output)[];
}
