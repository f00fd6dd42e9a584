// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface ListBatchesRequest {
  'customer_id'?: (string);
  'limit'?: (number);
  'starting_after'?: (string);
  'kind'?: (string);
  'created_gte_unix_ms'?: (number | string | Long);
  'created_lt_unix_ms'?: (number | string | Long);
  '_created_gte_unix_ms'?: "created_gte_unix_ms";
  '_created_lt_unix_ms'?: "created_lt_unix_ms";
}

export interface ListBatchesRequest__Output {
  'customer_id': (string);
  'limit': (number);
  'starting_after': (string);
  'kind': (string);
  'created_gte_unix_ms'?: (number);
  'created_lt_unix_ms'?: (number);
  '_created_gte_unix_ms'?: "created_gte_unix_ms";
  '_created_lt_unix_ms'?: "created_lt_unix_ms";
}
