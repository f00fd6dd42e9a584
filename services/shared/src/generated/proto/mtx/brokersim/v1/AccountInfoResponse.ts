// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface AccountInfoResponse {
  'login'?: (string);
  'server'?: (string);
  'currency'?: (string);
  'leverage'?: (number);
  'balance'?: (number | string);
  'equity'?: (number | string);
  'margin'?: (number | string);
  'free_margin'?: (number | string);
  'margin_level'?: (number | string);
  'profit'?: (number | string);
  'server_time_unix_ms'?: (number | string | Long);
  'margin_mode'?: (string);
  'trade_allowed'?: (boolean);
}

export interface AccountInfoResponse__Output {
  'login': (string);
  'server': (string);
  'currency': (string);
  'leverage': (number);
  'balance': (number);
  'equity': (number);
  'margin': (number);
  'free_margin': (number);
  'margin_level': (number);
  'profit': (number);
  'server_time_unix_ms': (number);
  'margin_mode': (string);
  'trade_allowed': (boolean);
}
