// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt4Result {
  'error'?: (number);
  'description'?: (string);
  'ticket'?: (number | string | Long);
  'price'?: (number | string);
  'bid'?: (number | string);
  'ask'?: (number | string);
  'lots'?: (number | string);
  'new_ticket'?: (number | string | Long);
}

export interface Mt4Result__Output {
  'error': (number);
  'description': (string);
  'ticket': (number);
  'price': (number);
  'bid': (number);
  'ask': (number);
  'lots': (number);
  'new_ticket': (number);
}
