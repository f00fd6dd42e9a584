// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface CloseFields {
  'symbol'?: (string);
  'symbol_match'?: (string);
  'side'?: (string);
  'kind'?: (string);
  'magic'?: (number | string | Long);
  'volume'?: (number | string);
  'slippage'?: (number | string | Long);
  '_symbol'?: "symbol";
  '_symbol_match'?: "symbol_match";
  '_side'?: "side";
  '_kind'?: "kind";
  '_magic'?: "magic";
  '_volume'?: "volume";
  '_slippage'?: "slippage";
}

export interface CloseFields__Output {
  'symbol'?: (string);
  'symbol_match'?: (string);
  'side'?: (string);
  'kind'?: (string);
  'magic'?: (number);
  'volume'?: (number);
  'slippage'?: (number);
  '_symbol'?: "symbol";
  '_symbol_match'?: "symbol_match";
  '_side'?: "side";
  '_kind'?: "kind";
  '_magic'?: "magic";
  '_volume'?: "volume";
  '_slippage'?: "slippage";
}
