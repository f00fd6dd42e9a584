// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt4Order {
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'cmd'?: (number);
  'lots'?: (number | string);
  'open_price'?: (number | string);
  'stoploss'?: (number | string);
  'takeprofit'?: (number | string);
  'magic'?: (number | string | Long);
  'comment'?: (string);
  'expiration'?: (number | string | Long);
  'open_time'?: (number | string | Long);
  'close_price'?: (number | string);
  'profit'?: (number | string);
  'swap'?: (number | string);
}

export interface Mt4Order__Output {
  'ticket': (number);
  'symbol': (string);
  'cmd': (number);
  'lots': (number);
  'open_price': (number);
  'stoploss': (number);
  'takeprofit': (number);
  'magic': (number);
  'comment': (string);
  'expiration': (number);
  'open_time': (number);
  'close_price': (number);
  'profit': (number);
  'swap': (number);
}
