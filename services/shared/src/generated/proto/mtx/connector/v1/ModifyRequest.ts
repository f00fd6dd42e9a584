// Original file: proto/connector/v1/connector.proto

import type { CloseSelector as _mtx_connector_v1_CloseSelector, CloseSelector__Output as _mtx_connector_v1_CloseSelector__Output } from '../../../mtx/connector/v1/CloseSelector';
import type { ModifyChange as _mtx_connector_v1_ModifyChange, ModifyChange__Output as _mtx_connector_v1_ModifyChange__Output } from '../../../mtx/connector/v1/ModifyChange';
import type { Long } from '@grpc/proto-loader';

export interface ModifyRequest {
  'account_id'?: (string);
  'selector'?: (_mtx_connector_v1_CloseSelector | null);
  'tickets'?: (number | string | Long)[];
  'change'?: (_mtx_connector_v1_ModifyChange | null);
  'client_id_base'?: (string);
  'deadline_unix_ms'?: (number | string | Long);
  'modifies_max'?: (number);
  'batch_id'?: (string);
  'symbol_suffix'?: (string);
  '_selector'?: "selector";
}

export interface ModifyRequest__Output {
  'account_id': (string);
  'selector'?: (_mtx_connector_v1_CloseSelector__Output | null);
  'tickets': (number)[];
  'change': (_mtx_connector_v1_ModifyChange__Output | null);
  'client_id_base': (string);
  'deadline_unix_ms': (number);
  'modifies_max': (number);
  'batch_id': (string);
  'symbol_suffix': (string);
  '_selector'?: "selector";
}
