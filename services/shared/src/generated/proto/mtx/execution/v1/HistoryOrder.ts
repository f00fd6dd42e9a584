// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface HistoryOrder {
  'account_id'?: (string);
  'platform'?: (string);
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (string);
  'state'?: (string);
  'volume_initial'?: (number | string);
  'volume_current'?: (number | string);
  'price_open'?: (number | string);
  'stop_loss'?: (number | string);
  'take_profit'?: (number | string);
  'time_setup'?: (string);
  'time_done'?: (string);
  'magic'?: (number | string | Long);
  'comment'?: (string);
  'position_id'?: (number | string | Long);
}

export interface HistoryOrder__Output {
  'account_id': (string);
  'platform': (string);
  'ticket': (number);
  'symbol': (string);
  'type': (string);
  'state': (string);
  'volume_initial': (number);
  'volume_current': (number);
  'price_open': (number);
  'stop_loss': (number);
  'take_profit': (number);
  'time_setup': (string);
  'time_done': (string);
  'magic': (number);
  'comment': (string);
  'position_id': (number);
}
