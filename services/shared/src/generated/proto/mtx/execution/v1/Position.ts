// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface Position {
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
  'opened_at'?: (string);
}

export interface Position__Output {
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
  'opened_at': (string);
}
