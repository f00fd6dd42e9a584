// Original file: proto/execution/v1/execution.proto

import type { Sizing as _mtx_execution_v1_Sizing, Sizing__Output as _mtx_execution_v1_Sizing__Output } from '../../../mtx/execution/v1/Sizing';
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
  'sizing'?: (_mtx_execution_v1_Sizing | null);
  'symbol_match'?: (string);
  'check_margin'?: (boolean);
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
  '_sizing'?: "sizing";
  '_symbol_match'?: "symbol_match";
  '_check_margin'?: "check_margin";
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
  'sizing'?: (_mtx_execution_v1_Sizing__Output | null);
  'symbol_match'?: (string);
  'check_margin'?: (boolean);
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
  '_sizing'?: "sizing";
  '_symbol_match'?: "symbol_match";
  '_check_margin'?: "check_margin";
}
