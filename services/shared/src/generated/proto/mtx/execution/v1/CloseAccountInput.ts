// Original file: proto/execution/v1/execution.proto

import type { CloseFields as _mtx_execution_v1_CloseFields, CloseFields__Output as _mtx_execution_v1_CloseFields__Output } from '../../../mtx/execution/v1/CloseFields';
import type { Long } from '@grpc/proto-loader';

export interface CloseAccountInput {
  'account_id'?: (string);
  'fields'?: (_mtx_execution_v1_CloseFields | null);
  'tickets'?: (number | string | Long)[];
  'has_tickets'?: (boolean);
}

export interface CloseAccountInput__Output {
  'account_id': (string);
  'fields': (_mtx_execution_v1_CloseFields__Output | null);
  'tickets': (number)[];
  'has_tickets': (boolean);
}
