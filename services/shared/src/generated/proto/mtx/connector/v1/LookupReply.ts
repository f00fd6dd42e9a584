// Original file: proto/connector/v1/connector.proto

import type { LookupEntry as _mtx_connector_v1_LookupEntry, LookupEntry__Output as _mtx_connector_v1_LookupEntry__Output } from '../../../mtx/connector/v1/LookupEntry';

export interface LookupReply {
  'account_id'?: (string);
  'connected'?: (boolean);
  'message'?: (string);
  'entries'?: (_mtx_connector_v1_LookupEntry)[];
}

export interface LookupReply__Output {
  'account_id': (string);
  'connected': (boolean);
  'message': (string);
  'entries': (_mtx_connector_v1_LookupEntry__Output)[];
}
