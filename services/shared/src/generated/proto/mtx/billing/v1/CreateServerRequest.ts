// Original file: proto/billing/v1/billing.proto


export interface CreateServerRequest {
  'customer_id'?: (string);
  'plan'?: (string);
  'label'?: (string);
  'server_id'?: (string);
  '_server_id'?: "server_id";
}

export interface CreateServerRequest__Output {
  'customer_id': (string);
  'plan': (string);
  'label': (string);
  'server_id'?: (string);
  '_server_id'?: "server_id";
}
