// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt5TradeResult {
  'retcode'?: (number);
  'deal'?: (number | string | Long);
  'order'?: (number | string | Long);
  'volume'?: (number | string);
  'price'?: (number | string);
  'bid'?: (number | string);
  'ask'?: (number | string);
  'comment'?: (string);
}

export interface Mt5TradeResult__Output {
  'retcode': (number);
  'deal': (number);
  'order': (number);
  'volume': (number);
  'price': (number);
  'bid': (number);
  'ask': (number);
  'comment': (string);
}
