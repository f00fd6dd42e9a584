// Original file: proto/notifications/v1/notifications.proto

import type { Long } from '@grpc/proto-loader';

export interface TestEndpointResponse {
  'event_id'?: (string);
  'endpoint_id'?: (string);
  'created'?: (number | string | Long);
}

export interface TestEndpointResponse__Output {
  'event_id': (string);
  'endpoint_id': (string);
  'created': (number);
}
