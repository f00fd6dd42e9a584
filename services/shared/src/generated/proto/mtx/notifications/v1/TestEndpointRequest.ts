// Original file: proto/notifications/v1/notifications.proto


export interface TestEndpointRequest {
  'customer_id'?: (string);
  'endpoint_id'?: (string);
}

export interface TestEndpointRequest__Output {
  'customer_id': (string);
  'endpoint_id': (string);
}
