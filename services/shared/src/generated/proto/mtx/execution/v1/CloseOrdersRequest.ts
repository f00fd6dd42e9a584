// Original file: proto/execution/v1/execution.proto

import type { CloseFields as _mtx_execution_v1_CloseFields, CloseFields__Output as _mtx_execution_v1_CloseFields__Output } from '../../../mtx/execution/v1/CloseFields';
import type { CloseAccountInput as _mtx_execution_v1_CloseAccountInput, CloseAccountInput__Output as _mtx_execution_v1_CloseAccountInput__Output } from '../../../mtx/execution/v1/CloseAccountInput';

export interface CloseOrdersRequest {
  'customer_id'?: (string);
  'defaults'?: (_mtx_execution_v1_CloseFields | null);
  'accounts'?: (_mtx_execution_v1_CloseAccountInput)[];
  'require_reachable'?: (boolean);
  'batch_id'?: (string);
  '_defaults'?: "defaults";
}

export interface CloseOrdersRequest__Output {
  'customer_id': (string);
  'defaults'?: (_mtx_execution_v1_CloseFields__Output | null);
  'accounts': (_mtx_execution_v1_CloseAccountInput__Output)[];
  'require_reachable': (boolean);
  'batch_id': (string);
  '_defaults'?: "defaults";
}
