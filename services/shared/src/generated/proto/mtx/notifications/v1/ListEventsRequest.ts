// Original file: proto/notifications/v1/notifications.proto


export interface ListEventsRequest {
  'customer_id'?: (string);
  'limit'?: (number);
  'starting_after'?: (string);
  'type'?: (string);
}

export interface ListEventsRequest__Output {
  'customer_id': (string);
  'limit': (number);
  'starting_after': (string);
  'type': (string);
}
