// Original file: proto/brokersim/v1/brokersim.proto

import type { Mt4Result as _mtx_brokersim_v1_Mt4Result, Mt4Result__Output as _mtx_brokersim_v1_Mt4Result__Output } from '../../../mtx/brokersim/v1/Mt4Result';
import type { Mt5TradeResult as _mtx_brokersim_v1_Mt5TradeResult, Mt5TradeResult__Output as _mtx_brokersim_v1_Mt5TradeResult__Output } from '../../../mtx/brokersim/v1/Mt5TradeResult';
import type { Long } from '@grpc/proto-loader';

export interface RequestRecord {
  'client_id'?: (string);
  'state'?: (string);
  'action'?: (string);
  'symbol'?: (string);
  'ticket'?: (number | string | Long);
  'type'?: (number);
  'volume'?: (number | string);
  'mt4'?: (_mtx_brokersim_v1_Mt4Result | null);
  'mt5'?: (_mtx_brokersim_v1_Mt5TradeResult | null);
  'kind'?: (string);
  '_mt4'?: "mt4";
  '_mt5'?: "mt5";
}

export interface RequestRecord__Output {
  'client_id': (string);
  'state': (string);
  'action': (string);
  'symbol': (string);
  'ticket': (number);
  'type': (number);
  'volume': (number);
  'mt4'?: (_mtx_brokersim_v1_Mt4Result__Output | null);
  'mt5'?: (_mtx_brokersim_v1_Mt5TradeResult__Output | null);
  'kind': (string);
  '_mt4'?: "mt4";
  '_mt5'?: "mt5";
}
