// Original file: proto/connector/v1/connector.proto

import type { Credentials as _mtx_connector_v1_Credentials, Credentials__Output as _mtx_connector_v1_Credentials__Output } from '../../../mtx/connector/v1/Credentials';

export interface StateRequest {
  'account_id'?: (string);
  'credentials'?: (_mtx_connector_v1_Credentials | null);
}

export interface StateRequest__Output {
  'account_id': (string);
  'credentials': (_mtx_connector_v1_Credentials__Output | null);
}
