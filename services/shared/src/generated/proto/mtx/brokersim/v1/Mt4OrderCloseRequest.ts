// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt4OrderCloseRequest {
  'session_id'?: (string);
  'client_id'?: (string);
  'deadline_unix_ms'?: (number | string | Long);
  'ticket'?: (number | string | Long);
  'lots'?: (number | string);
  'price'?: (number | string);
  'slippage'?: (number);
}

export interface Mt4OrderCloseRequest__Output {
  'session_id': (string);
  'client_id': (string);
  'deadline_unix_ms': (number);
  'ticket': (number);
  'lots': (number);
  'price': (number);
  'slippage': (number);
}
