// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface CreditRequest {
  'customer_id'?: (string);
  'entry_id'?: (string);
  'amount_eur_cents'?: (number | string | Long);
  'reason'?: (string);
  'reference'?: (string);
}

export interface CreditRequest__Output {
  'customer_id': (string);
  'entry_id': (string);
  'amount_eur_cents': (number);
  'reason': (string);
  'reference': (string);
}
