// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt5Order {
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (number);
  'volume_current'?: (number | string);
  'price_open'?: (number | string);
  'price_stoplimit'?: (number | string);
  'sl'?: (number | string);
  'tp'?: (number | string);
  'magic'?: (number | string | Long);
  'comment'?: (string);
  'expiration'?: (number | string | Long);
  'price_current'?: (number | string);
  'time_setup'?: (number | string | Long);
}

export interface Mt5Order__Output {
  'ticket': (number);
  'symbol': (string);
  'type': (number);
  'volume_current': (number);
  'price_open': (number);
  'price_stoplimit': (number);
  'sl': (number);
  'tp': (number);
  'magic': (number);
  'comment': (string);
  'expiration': (number);
  'price_current': (number);
  'time_setup': (number);
}
