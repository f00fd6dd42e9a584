// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface CreditManyItem {
  'entry_id'?: (string);
  'outcome'?: (string);
  'balance_eur_cents'?: (number | string | Long);
  'held_eur_cents'?: (number | string | Long);
  'sequence'?: (number | string | Long);
  'balance_delta_eur_cents'?: (number | string | Long);
  'held_delta_eur_cents'?: (number | string | Long);
  'error_code'?: (string);
  'error_message'?: (string);
}

export interface CreditManyItem__Output {
  'entry_id': (string);
  'outcome': (string);
  'balance_eur_cents': (number);
  'held_eur_cents': (number);
  'sequence': (number);
  'balance_delta_eur_cents': (number);
  'held_delta_eur_cents': (number);
  'error_code': (string);
  'error_message': (string);
}
