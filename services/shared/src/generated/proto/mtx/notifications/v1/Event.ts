// Original file: proto/notifications/v1/notifications.proto

import type { Long } from '@grpc/proto-loader';

export interface Event {
  'id'?: (string);
  'type'?: (string);
  'created'?: (number | string | Long);
  'data_json'?: (string);
}

export interface Event__Output {
  'id': (string);
  'type': (string);
  'created': (number);
  'data_json': (string);
}
