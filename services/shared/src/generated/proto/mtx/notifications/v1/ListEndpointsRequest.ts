// Original file: proto/notifications/v1/notifications.proto


export interface ListEndpointsRequest {
  'customer_id'?: (string);
}

export interface ListEndpointsRequest__Output {
  'customer_id': (string);
}
