// Original file: proto/notifications/v1/notifications.proto


export interface DeleteEndpointRequest {
  'customer_id'?: (string);
  'endpoint_id'?: (string);
}

export interface DeleteEndpointRequest__Output {
  'customer_id': (string);
  'endpoint_id': (string);
}
