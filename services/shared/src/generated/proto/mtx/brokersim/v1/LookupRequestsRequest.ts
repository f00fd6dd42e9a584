// Original file: proto/brokersim/v1/brokersim.proto


export interface LookupRequestsRequest {
  'session_id'?: (string);
  'client_ids'?: (string)[];
  'client_id_prefix'?: (string);
}

export interface LookupRequestsRequest__Output {
  'session_id': (string);
  'client_ids': (string)[];
  'client_id_prefix': (string);
}
