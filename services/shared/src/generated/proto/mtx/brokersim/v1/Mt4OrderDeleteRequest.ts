// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface Mt4OrderDeleteRequest {
  'session_id'?: (string);
  'client_id'?: (string);
  'deadline_unix_ms'?: (number | string | Long);
  'ticket'?: (number | string | Long);
}

export interface Mt4OrderDeleteRequest__Output {
  'session_id': (string);
  'client_id': (string);
  'deadline_unix_ms': (number);
  'ticket': (number);
}
