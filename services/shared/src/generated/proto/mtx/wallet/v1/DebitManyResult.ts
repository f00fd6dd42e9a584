// Original file: proto/wallet/v1/wallet.proto

import type { DebitManyItem as _mtx_wallet_v1_DebitManyItem, DebitManyItem__Output as _mtx_wallet_v1_DebitManyItem__Output } from '../../../mtx/wallet/v1/DebitManyItem';
import type { Long } from '@grpc/proto-loader';

export interface DebitManyResult {
  'customer_id'?: (string);
  'items'?: (_mtx_wallet_v1_DebitManyItem)[];
  'balance_eur_cents'?: (number | string | Long);
  'held_eur_cents'?: (number | string | Long);
  'sequence'?: (number | string | Long);
}

export interface DebitManyResult__Output {
  'customer_id': (string);
  'items': (_mtx_wallet_v1_DebitManyItem__Output)[];
  'balance_eur_cents': (number);
  'held_eur_cents': (number);
  'sequence': (number);
}
