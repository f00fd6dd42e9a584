// Original file: proto/wallet/v1/wallet.proto

import type { DebitEntry as _mtx_wallet_v1_DebitEntry, DebitEntry__Output as _mtx_wallet_v1_DebitEntry__Output } from '../../../mtx/wallet/v1/DebitEntry';

export interface DebitManyRequest {
  'customer_id'?: (string);
  'entries'?: (_mtx_wallet_v1_DebitEntry)[];
}

export interface DebitManyRequest__Output {
  'customer_id': (string);
  'entries': (_mtx_wallet_v1_DebitEntry__Output)[];
}
