// Original file: proto/connector/v1/inspect.proto

import type { MarginCheck as _mtx_connector_v1_MarginCheck, MarginCheck__Output as _mtx_connector_v1_MarginCheck__Output } from '../../../mtx/connector/v1/MarginCheck';
import type { Long } from '@grpc/proto-loader';

export interface InspectRequest {
  'account_id'?: (string);
  'deadline_unix_ms'?: (number | string | Long);
  'account'?: (boolean);
  'positions'?: (boolean);
  'symbols'?: (string)[];
  'bases'?: (string)[];
  'symbol_suffix'?: (string);
  'margin_checks'?: (_mtx_connector_v1_MarginCheck)[];
}

export interface InspectRequest__Output {
  'account_id': (string);
  'deadline_unix_ms': (number);
  'account': (boolean);
  'positions': (boolean);
  'symbols': (string)[];
  'bases': (string)[];
  'symbol_suffix': (string);
  'margin_checks': (_mtx_connector_v1_MarginCheck__Output)[];
}
