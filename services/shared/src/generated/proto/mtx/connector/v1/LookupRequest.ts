// Original file: proto/connector/v1/connector.proto


export interface LookupRequest {
  'account_id'?: (string);
  'client_ids'?: (string)[];
  'client_id_prefix'?: (string);
}

export interface LookupRequest__Output {
  'account_id': (string);
  'client_ids': (string)[];
  'client_id_prefix': (string);
}
