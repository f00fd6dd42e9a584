// Original file: proto/execution/v1/execution.proto

import type { Position as _mtx_execution_v1_Position, Position__Output as _mtx_execution_v1_Position__Output } from '../../../mtx/execution/v1/Position';
import type { Long } from '@grpc/proto-loader';

export interface AccountPositions {
  'account_id'?: (string);
  'platform'?: (string);
  'status'?: (string);
  'message'?: (string);
  'positions'?: (_mtx_execution_v1_Position)[];
  'latency_ms'?: (number | string | Long);
}

export interface AccountPositions__Output {
  'account_id': (string);
  'platform': (string);
  'status': (string);
  'message': (string);
  'positions': (_mtx_execution_v1_Position__Output)[];
  'latency_ms': (number);
}
