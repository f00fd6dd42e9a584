// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface ListPositionsRequest {
  'customer_id'?: (string);
  'account_ids'?: (string)[];
  'symbol'?: (string);
  'symbol_match'?: (string);
  'side'?: (string);
  'kind'?: (string);
  'magic'?: (number | string | Long);
  '_symbol'?: "symbol";
  '_symbol_match'?: "symbol_match";
  '_side'?: "side";
  '_kind'?: "kind";
  '_magic'?: "magic";
}

export interface ListPositionsRequest__Output {
  'customer_id': (string);
  'account_ids': (string)[];
  'symbol'?: (string);
  'symbol_match'?: (string);
  'side'?: (string);
  'kind'?: (string);
  'magic'?: (number);
  '_symbol'?: "symbol";
  '_symbol_match'?: "symbol_match";
  '_side'?: "side";
  '_kind'?: "kind";
  '_magic'?: "magic";
}
