// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface LookupRequest {
  'account_id'?: (string);
  'client_ids'?: (string)[];
  'client_id_prefix'?: (string);
  'from_unix_ms'?: (number | string | Long);
}

export interface LookupRequest__Output {
  'account_id': (string);
  'client_ids': (string)[];
  'client_id_prefix': (string);
  'from_unix_ms': (number);
}
