// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface HistoryDeal {
  'account_id'?: (string);
  'platform'?: (string);
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
  'time'?: (string);
}

export interface HistoryDeal__Output {
  'account_id': (string);
  'platform': (string);
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
  'time': (string);
}
