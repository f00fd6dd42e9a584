// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface StateReply {
  'account_id'?: (string);
  'connected'?: (boolean);
  'reason'?: (string);
  'message'?: (string);
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
  'latency_ms'?: (number | string | Long);
}

export interface StateReply__Output {
  'account_id': (string);
  'connected': (boolean);
  'reason': (string);
  'message': (string);
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
  'latency_ms': (number);
}
