// Original file: proto/notifications/v1/notifications.proto


export interface Endpoint {
  'id'?: (string);
  'url'?: (string);
  'enabled_events'?: (string)[];
  'description'?: (string);
  'status'?: (string);
  'disabled_reason'?: (string);
  'created_at'?: (string);
  'secret'?: (string);
  'deleted'?: (boolean);
}

export interface Endpoint__Output {
  'id': (string);
  'url': (string);
  'enabled_events': (string)[];
  'description': (string);
  'status': (string);
  'disabled_reason': (string);
  'created_at': (string);
  'secret': (string);
  'deleted': (boolean);
}
