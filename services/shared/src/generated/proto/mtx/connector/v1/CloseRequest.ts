// Original file: proto/connector/v1/connector.proto

import type { CloseSelector as _mtx_connector_v1_CloseSelector, CloseSelector__Output as _mtx_connector_v1_CloseSelector__Output } from '../../../mtx/connector/v1/CloseSelector';
import type { Long } from '@grpc/proto-loader';

export interface CloseRequest {
  'account_id'?: (string);
  'selector'?: (_mtx_connector_v1_CloseSelector | null);
  'tickets'?: (number | string | Long)[];
  'volume'?: (number | string);
  'slippage'?: (number | string | Long);
  'client_id_base'?: (string);
  'deadline_unix_ms'?: (number | string | Long);
  'closes_max'?: (number);
  'batch_id'?: (string);
  'symbol_suffix'?: (string);
  '_selector'?: "selector";
  '_volume'?: "volume";
  '_slippage'?: "slippage";
}

export interface CloseRequest__Output {
  'account_id': (string);
  'selector'?: (_mtx_connector_v1_CloseSelector__Output | null);
  'tickets': (number)[];
  'volume'?: (number);
  'slippage'?: (number);
  'client_id_base': (string);
  'deadline_unix_ms': (number);
  'closes_max': (number);
  'batch_id': (string);
  'symbol_suffix': (string);
  '_selector'?: "selector";
  '_volume'?: "volume";
  '_slippage'?: "slippage";
}
