// Original file: proto/execution/v1/execution.proto

import type { CloseFields as _mtx_execution_v1_CloseFields, CloseFields__Output as _mtx_execution_v1_CloseFields__Output } from '../../../mtx/execution/v1/CloseFields';
import type { CloseAccountInput as _mtx_execution_v1_CloseAccountInput, CloseAccountInput__Output as _mtx_execution_v1_CloseAccountInput__Output } from '../../../mtx/execution/v1/CloseAccountInput';
import type { ModifyChangeInput as _mtx_execution_v1_ModifyChangeInput, ModifyChangeInput__Output as _mtx_execution_v1_ModifyChangeInput__Output } from '../../../mtx/execution/v1/ModifyChangeInput';

export interface ModifyOrdersRequest {
  'customer_id'?: (string);
  'defaults'?: (_mtx_execution_v1_CloseFields | null);
  'accounts'?: (_mtx_execution_v1_CloseAccountInput)[];
  'change'?: (_mtx_execution_v1_ModifyChangeInput | null);
  'batch_id'?: (string);
  '_defaults'?: "defaults";
}

export interface ModifyOrdersRequest__Output {
  'customer_id': (string);
  'defaults'?: (_mtx_execution_v1_CloseFields__Output | null);
  'accounts': (_mtx_execution_v1_CloseAccountInput__Output)[];
  'change': (_mtx_execution_v1_ModifyChangeInput__Output | null);
  'batch_id': (string);
  '_defaults'?: "defaults";
}
