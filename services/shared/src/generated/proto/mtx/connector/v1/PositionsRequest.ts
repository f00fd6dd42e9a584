// Original file: proto/connector/v1/connector.proto

import type { CloseSelector as _mtx_connector_v1_CloseSelector, CloseSelector__Output as _mtx_connector_v1_CloseSelector__Output } from '../../../mtx/connector/v1/CloseSelector';
import type { Long } from '@grpc/proto-loader';

export interface PositionsRequest {
  'account_id'?: (string);
  'selector'?: (_mtx_connector_v1_CloseSelector | null);
  'deadline_unix_ms'?: (number | string | Long);
  'symbol_suffix'?: (string);
}

export interface PositionsRequest__Output {
  'account_id': (string);
  'selector': (_mtx_connector_v1_CloseSelector__Output | null);
  'deadline_unix_ms': (number);
  'symbol_suffix': (string);
}
