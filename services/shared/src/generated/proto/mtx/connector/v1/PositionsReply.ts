// Original file: proto/connector/v1/connector.proto

import type { OpenPosition as _mtx_connector_v1_OpenPosition, OpenPosition__Output as _mtx_connector_v1_OpenPosition__Output } from '../../../mtx/connector/v1/OpenPosition';
import type { Long } from '@grpc/proto-loader';

export interface PositionsReply {
  'account_id'?: (string);
  'status'?: (string);
  'message'?: (string);
  'positions'?: (_mtx_connector_v1_OpenPosition)[];
  'latency_ms'?: (number | string | Long);
}

export interface PositionsReply__Output {
  'account_id': (string);
  'status': (string);
  'message': (string);
  'positions': (_mtx_connector_v1_OpenPosition__Output)[];
  'latency_ms': (number);
}
