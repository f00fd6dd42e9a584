// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt4OrderSendRequest {
  'session_id'?: (string);
  'client_id'?: (string);
  'deadline_unix_ms'?: (number | string | Long);
  'symbol'?: (string);
  'cmd'?: (number);
  'volume'?: (number | string);
  'price'?: (number | string);
  'slippage'?: (number);
  'stoploss'?: (number | string);
  'takeprofit'?: (number | string);
  'comment'?: (string);
  'magic'?: (number | string | Long);
  'expiration'?: (number | string | Long);
}

export interface Mt4OrderSendRequest__Output {
  'session_id': (string);
  'client_id': (string);
  'deadline_unix_ms': (number);
  'symbol': (string);
  'cmd': (number);
  'volume': (number);
  'price': (number);
  'slippage': (number);
  'stoploss': (number);
  'takeprofit': (number);
  'comment': (string);
  'magic': (number);
  'expiration': (number);
}
