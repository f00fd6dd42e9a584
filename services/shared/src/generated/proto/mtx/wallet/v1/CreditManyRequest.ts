// Original file: proto/wallet/v1/wallet.proto

import type { CreditRequest as _mtx_wallet_v1_CreditRequest, CreditRequest__Output as _mtx_wallet_v1_CreditRequest__Output } from '../../../mtx/wallet/v1/CreditRequest';

export interface CreditManyRequest {
  'credits'?: (_mtx_wallet_v1_CreditRequest)[];
}

export interface CreditManyRequest__Output {
  'credits': (_mtx_wallet_v1_CreditRequest__Output)[];
}
