// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface OrderLegResult {
  'account_id'?: (string);
  'platform'?: (string);
  'symbol'?: (string);
  'operation'?: (string);
  'volume'?: (number | string);
  'status'?: (string);
  'order'?: (number | string | Long);
  'deal'?: (number | string | Long);
  'price'?: (number | string);
  'bid'?: (number | string);
  'ask'?: (number | string);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'message'?: (string);
  'latency_ms'?: (number | string | Long);
  '_price'?: "price";
  '_bid'?: "bid";
  '_ask'?: "ask";
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
}

export interface OrderLegResult__Output {
  'account_id': (string);
  'platform': (string);
  'symbol': (string);
  'operation': (string);
  'volume': (number);
  'status': (string);
  'order': (number);
  'deal': (number);
  'price'?: (number);
  'bid'?: (number);
  'ask'?: (number);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'message': (string);
  'latency_ms': (number);
  '_price'?: "price";
  '_bid'?: "bid";
  '_ask'?: "ask";
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
}
