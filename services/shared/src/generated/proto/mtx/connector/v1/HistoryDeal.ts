// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface HistoryDeal {
  'ticket'?: (number | string | Long);
  'order'?: (number | string | Long);
  'position_id'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (string);
  'entry'?: (string);
  'volume'?: (number | string);
  'price'?: (number | string);
  'profit'?: (number | string);
  'swap'?: (number | string);
  'commission'?: (number | string);
  'magic'?: (number | string | Long);
  'comment'?: (string);
  'time_unix_ms'?: (number | string | Long);
}

export interface HistoryDeal__Output {
  'ticket': (number);
  'order': (number);
  'position_id': (number);
  'symbol': (string);
  'type': (string);
  'entry': (string);
  'volume': (number);
  'price': (number);
  'profit': (number);
  'swap': (number);
  'commission': (number);
  'magic': (number);
  'comment': (string);
  'time_unix_ms': (number);
}
