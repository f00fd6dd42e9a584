// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface HistoryOrder {
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (string);
  'state'?: (string);
  'volume_initial'?: (number | string);
  'volume_current'?: (number | string);
  'price_open'?: (number | string);
  'stop_loss'?: (number | string);
  'take_profit'?: (number | string);
  'time_setup_unix_ms'?: (number | string | Long);
  'time_done_unix_ms'?: (number | string | Long);
  'magic'?: (number | string | Long);
  'comment'?: (string);
  'position_id'?: (number | string | Long);
}

export interface HistoryOrder__Output {
  'ticket': (number);
  'symbol': (string);
  'type': (string);
  'state': (string);
  'volume_initial': (number);
  'volume_current': (number);
  'price_open': (number);
  'stop_loss': (number);
  'take_profit': (number);
  'time_setup_unix_ms': (number);
  'time_done_unix_ms': (number);
  'magic': (number);
  'comment': (string);
  'position_id': (number);
}
