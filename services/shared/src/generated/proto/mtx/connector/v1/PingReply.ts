// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface PingReply {
  'connected'?: (boolean);
  'server'?: (string);
  'latency_ms'?: (number | string | Long);
  'platform'?: (string);
  'symbol_suffix'?: (string);
  'margin_mode'?: (string);
  'message'?: (string);
  'reason'?: (string);
}

export interface PingReply__Output {
  'connected': (boolean);
  'server': (string);
  'latency_ms': (number);
  'platform': (string);
  'symbol_suffix': (string);
  'margin_mode': (string);
  'message': (string);
  'reason': (string);
}
