// Original file: proto/execution/v1/execution.proto

import type { ModifySummary as _mtx_execution_v1_ModifySummary, ModifySummary__Output as _mtx_execution_v1_ModifySummary__Output } from '../../../mtx/execution/v1/ModifySummary';
import type { ModifyAccountResult as _mtx_execution_v1_ModifyAccountResult, ModifyAccountResult__Output as _mtx_execution_v1_ModifyAccountResult__Output } from '../../../mtx/execution/v1/ModifyAccountResult';

export interface ModifyOrdersResponse {
  'batch_id'?: (string);
  'summary'?: (_mtx_execution_v1_ModifySummary | null);
  'results'?: (_mtx_execution_v1_ModifyAccountResult)[];
}

export interface ModifyOrdersResponse__Output {
  'batch_id': (string);
  'summary': (_mtx_execution_v1_ModifySummary__Output | null);
  'results': (_mtx_execution_v1_ModifyAccountResult__Output)[];
}
