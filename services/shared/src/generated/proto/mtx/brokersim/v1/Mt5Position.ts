// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt5Position {
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (number);
  'volume'?: (number | string);
  'price_open'?: (number | string);
  'sl'?: (number | string);
  'tp'?: (number | string);
  'magic'?: (number | string | Long);
  'comment'?: (string);
  'time'?: (number | string | Long);
  'price_current'?: (number | string);
  'profit'?: (number | string);
  'swap'?: (number | string);
}

export interface Mt5Position__Output {
  'ticket': (number);
  'symbol': (string);
  'type': (number);
  'volume': (number);
  'price_open': (number);
  'sl': (number);
  'tp': (number);
  'magic': (number);
  'comment': (string);
  'time': (number);
  'price_current': (number);
  'profit': (number);
  'swap': (number);
}
