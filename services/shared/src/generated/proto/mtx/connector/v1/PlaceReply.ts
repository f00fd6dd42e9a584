// Original file: proto/connector/v1/connector.proto

import type { LegResult as _mtx_connector_v1_LegResult, LegResult__Output as _mtx_connector_v1_LegResult__Output } from '../../../mtx/connector/v1/LegResult';

export interface PlaceReply {
  'account_id'?: (string);
  'results'?: (_mtx_connector_v1_LegResult)[];
}

export interface PlaceReply__Output {
  'account_id': (string);
  'results': (_mtx_connector_v1_LegResult__Output)[];
}
