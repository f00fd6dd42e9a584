// Original file: proto/connector/v1/connector.proto

import type { Credentials as _mtx_connector_v1_Credentials, Credentials__Output as _mtx_connector_v1_Credentials__Output } from '../../../mtx/connector/v1/Credentials';
import type { CloseSelector as _mtx_connector_v1_CloseSelector, CloseSelector__Output as _mtx_connector_v1_CloseSelector__Output } from '../../../mtx/connector/v1/CloseSelector';
import type { Long } from '@grpc/proto-loader';

export interface PositionsRequest {
  'account_id'?: (string);
  'credentials'?: (_mtx_connector_v1_Credentials | null);
  'selector'?: (_mtx_connector_v1_CloseSelector | null);
  'deadline_unix_ms'?: (number | string | Long);
}

export interface PositionsRequest__Output {
  'account_id': (string);
  'credentials': (_mtx_connector_v1_Credentials__Output | null);
  'selector': (_mtx_connector_v1_CloseSelector__Output | null);
  'deadline_unix_ms': (number);
}
