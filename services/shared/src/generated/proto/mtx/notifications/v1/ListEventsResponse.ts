// Original file: proto/notifications/v1/notifications.proto

import type { Event as _mtx_notifications_v1_Event, Event__Output as _mtx_notifications_v1_Event__Output } from '../../../mtx/notifications/v1/Event';

export interface ListEventsResponse {
  'data'?: (_mtx_notifications_v1_Event)[];
  'has_more'?: (boolean);
}

export interface ListEventsResponse__Output {
  'data': (_mtx_notifications_v1_Event__Output)[];
  'has_more': (boolean);
}
