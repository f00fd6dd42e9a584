// Original file: proto/execution/v1/execution.proto

import type { TradeServer as _mtx_execution_v1_TradeServer, TradeServer__Output as _mtx_execution_v1_TradeServer__Output } from '../../../mtx/execution/v1/TradeServer';

export interface ListServersResponse {
  'servers'?: (_mtx_execution_v1_TradeServer)[];
}

export interface ListServersResponse__Output {
  'servers': (_mtx_execution_v1_TradeServer__Output)[];
}
