// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface CloseSelector {
  'symbol'?: (string);
  'symbol_match'?: (string);
  'side'?: (string);
  'kind'?: (string);
  'magic'?: (number | string | Long);
  '_magic'?: "magic";
}

export interface CloseSelector__Output {
  'symbol': (string);
  'symbol_match': (string);
  'side': (string);
  'kind': (string);
  'magic'?: (number);
  '_magic'?: "magic";
}
