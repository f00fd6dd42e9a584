// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface AccountState {
  'account_id'?: (string);
  'platform'?: (string);
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
  'server_time'?: (string);
  'margin_mode'?: (string);
  'trade_allowed'?: (boolean);
  'latency_ms'?: (number | string | Long);
  '_currency'?: "currency";
  '_leverage'?: "leverage";
  '_balance'?: "balance";
  '_equity'?: "equity";
  '_margin'?: "margin";
  '_free_margin'?: "free_margin";
  '_margin_level'?: "margin_level";
  '_profit'?: "profit";
  '_server_time'?: "server_time";
  '_margin_mode'?: "margin_mode";
  '_trade_allowed'?: "trade_allowed";
}

export interface AccountState__Output {
  'account_id': (string);
  'platform': (string);
  'connected': (boolean);
  'reason': (string);
  'message': (string);
  'server': (string);
  'currency'?: (string);
  'leverage'?: (number);
  'balance'?: (number);
  'equity'?: (number);
  'margin'?: (number);
  'free_margin'?: (number);
  'margin_level'?: (number);
  'profit'?: (number);
  'server_time'?: (string);
  'margin_mode'?: (string);
  'trade_allowed'?: (boolean);
  'latency_ms': (number);
  '_currency'?: "currency";
  '_leverage'?: "leverage";
  '_balance'?: "balance";
  '_equity'?: "equity";
  '_margin'?: "margin";
  '_free_margin'?: "free_margin";
  '_margin_level'?: "margin_level";
  '_profit'?: "profit";
  '_server_time'?: "server_time";
  '_margin_mode'?: "margin_mode";
  '_trade_allowed'?: "trade_allowed";
}
