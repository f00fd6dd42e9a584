// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface HistoryRequest {
  'account_id'?: (string);
  'kind'?: (string);
  'from_unix_ms'?: (number | string | Long);
  'to_unix_ms'?: (number | string | Long);
  'symbol'?: (string);
  'symbol_suffix'?: (string);
  'limit'?: (number);
  'before_unix_ms'?: (number | string | Long);
  'before_ticket'?: (number | string | Long);
  'deadline_unix_ms'?: (number | string | Long);
}

export interface HistoryRequest__Output {
  'account_id': (string);
  'kind': (string);
  'from_unix_ms': (number);
  'to_unix_ms': (number);
  'symbol': (string);
  'symbol_suffix': (string);
  'limit': (number);
  'before_unix_ms': (number);
  'before_ticket': (number);
  'deadline_unix_ms': (number);
}
