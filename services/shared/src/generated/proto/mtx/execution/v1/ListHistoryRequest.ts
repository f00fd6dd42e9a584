// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface ListHistoryRequest {
  'customer_id'?: (string);
  'kind'?: (string);
  'account_ids'?: (string)[];
  'from_unix_ms'?: (number | string | Long);
  'to_unix_ms'?: (number | string | Long);
  'symbol'?: (string);
  'limit'?: (number);
  'starting_after'?: (string);
  '_from_unix_ms'?: "from_unix_ms";
  '_to_unix_ms'?: "to_unix_ms";
}

export interface ListHistoryRequest__Output {
  'customer_id': (string);
  'kind': (string);
  'account_ids': (string)[];
  'from_unix_ms'?: (number);
  'to_unix_ms'?: (number);
  'symbol': (string);
  'limit': (number);
  'starting_after': (string);
  '_from_unix_ms'?: "from_unix_ms";
  '_to_unix_ms'?: "to_unix_ms";
}
