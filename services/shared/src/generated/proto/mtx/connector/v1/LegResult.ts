// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface LegResult {
  'client_id'?: (string);
  'leg_index'?: (number);
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
  'volume'?: (number | string);
  'symbol'?: (string);
  'operation'?: (string);
  '_price'?: "price";
  '_bid'?: "bid";
  '_ask'?: "ask";
}

export interface LegResult__Output {
  'client_id': (string);
  'leg_index': (number);
  'status': (string);
  'order': (number);
  'deal': (number);
  'price'?: (number);
  'bid'?: (number);
  'ask'?: (number);
  'retcode': (number);
  'retcode_description': (string);
  'message': (string);
  'latency_ms': (number);
  'volume': (number);
  'symbol': (string);
  'operation': (string);
  '_price'?: "price";
  '_bid'?: "bid";
  '_ask'?: "ask";
}
