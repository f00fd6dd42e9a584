// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt5TradeRequest {
  'session_id'?: (string);
  'client_id'?: (string);
  'deadline_unix_ms'?: (number | string | Long);
  'action'?: (number);
  'magic'?: (number | string | Long);
  'order'?: (number | string | Long);
  'symbol'?: (string);
  'volume'?: (number | string);
  'price'?: (number | string);
  'stoplimit'?: (number | string);
  'sl'?: (number | string);
  'tp'?: (number | string);
  'deviation'?: (number);
  'type'?: (number);
  'expiration'?: (number | string | Long);
  'comment'?: (string);
  'position'?: (number | string | Long);
}

export interface Mt5TradeRequest__Output {
  'session_id': (string);
  'client_id': (string);
  'deadline_unix_ms': (number);
  'action': (number);
  'magic': (number);
  'order': (number);
  'symbol': (string);
  'volume': (number);
  'price': (number);
  'stoplimit': (number);
  'sl': (number);
  'tp': (number);
  'deviation': (number);
  'type': (number);
  'expiration': (number);
  'comment': (string);
  'position': (number);
}
