// Original file: proto/notifications/v1/notifications.proto


export interface CreateEndpointRequest {
  'customer_id'?: (string);
  'url'?: (string);
  'enabled_events'?: (string)[];
  'description'?: (string);
}

export interface CreateEndpointRequest__Output {
  'customer_id': (string);
  'url': (string);
  'enabled_events': (string)[];
  'description': (string);
}
