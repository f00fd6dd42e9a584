// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface OrderFields {
  'symbol'?: (string);
  'operation'?: (string);
  'volume'?: (number | string);
  'price'?: (number | string);
  'slippage'?: (number | string | Long);
  'stop_loss'?: (number | string);
  'take_profit'?: (number | string);
  'stop_limit_price'?: (number | string);
  'expiration'?: (string);
  'comment'?: (string);
  'expert_id'?: (number | string | Long);
  '_symbol'?: "symbol";
  '_operation'?: "operation";
  '_volume'?: "volume";
  '_price'?: "price";
  '_slippage'?: "slippage";
  '_stop_loss'?: "stop_loss";
  '_take_profit'?: "take_profit";
  '_stop_limit_price'?: "stop_limit_price";
  '_expiration'?: "expiration";
  '_comment'?: "comment";
  '_expert_id'?: "expert_id";
}

export interface OrderFields__Output {
  'symbol'?: (string);
  'operation'?: (string);
  'volume'?: (number);
  'price'?: (number);
  'slippage'?: (number);
  'stop_loss'?: (number);
  'take_profit'?: (number);
  'stop_limit_price'?: (number);
  'expiration'?: (string);
  'comment'?: (string);
  'expert_id'?: (number);
  '_symbol'?: "symbol";
  '_operation'?: "operation";
  '_volume'?: "volume";
  '_price'?: "price";
  '_slippage'?: "slippage";
  '_stop_loss'?: "stop_loss";
  '_take_profit'?: "take_profit";
  '_stop_limit_price'?: "stop_limit_price";
  '_expiration'?: "expiration";
  '_comment'?: "comment";
  '_expert_id'?: "expert_id";
}
