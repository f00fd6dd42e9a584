// Original file: proto/notifications/v1/notifications.proto

import type { Endpoint as _mtx_notifications_v1_Endpoint, Endpoint__Output as _mtx_notifications_v1_Endpoint__Output } from '../../../mtx/notifications/v1/Endpoint';

export interface ListEndpointsResponse {
  'data'?: (_mtx_notifications_v1_Endpoint)[];
  'has_more'?: (boolean);
}

export interface ListEndpointsResponse__Output {
  'data': (_mtx_notifications_v1_Endpoint__Output)[];
  'has_more': (boolean);
}
