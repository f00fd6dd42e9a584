// Original file: proto/connector/v1/connector.proto

import type { Credentials as _mtx_connector_v1_Credentials, Credentials__Output as _mtx_connector_v1_Credentials__Output } from '../../../mtx/connector/v1/Credentials';

export interface LookupRequest {
  'account_id'?: (string);
  'credentials'?: (_mtx_connector_v1_Credentials | null);
  'client_ids'?: (string)[];
  'client_id_prefix'?: (string);
}

export interface LookupRequest__Output {
  'account_id': (string);
  'credentials': (_mtx_connector_v1_Credentials__Output | null);
  'client_ids': (string)[];
  'client_id_prefix': (string);
}
