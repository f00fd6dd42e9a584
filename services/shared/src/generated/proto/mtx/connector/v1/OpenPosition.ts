// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface OpenPosition {
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (string);
  'kind'?: (string);
  'volume'?: (number | string);
  'open_price'?: (number | string);
  'current_price'?: (number | string);
  'stop_loss'?: (number | string);
  'take_profit'?: (number | string);
  'profit'?: (number | string);
  'swap'?: (number | string);
  'magic'?: (number | string | Long);
  'comment'?: (string);
  'opened_at_unix_ms'?: (number | string | Long);
}

export interface OpenPosition__Output {
  'ticket': (number);
  'symbol': (string);
  'type': (string);
  'kind': (string);
  'volume': (number);
  'open_price': (number);
  'current_price': (number);
  'stop_loss': (number);
  'take_profit': (number);
  'profit': (number);
  'swap': (number);
  'magic': (number);
  'comment': (string);
  'opened_at_unix_ms': (number);
}
