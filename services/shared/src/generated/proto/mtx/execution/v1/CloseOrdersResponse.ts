// Original file: proto/execution/v1/execution.proto

import type { CloseSummary as _mtx_execution_v1_CloseSummary, CloseSummary__Output as _mtx_execution_v1_CloseSummary__Output } from '../../../mtx/execution/v1/CloseSummary';
import type { CloseAccountResult as _mtx_execution_v1_CloseAccountResult, CloseAccountResult__Output as _mtx_execution_v1_CloseAccountResult__Output } from '../../../mtx/execution/v1/CloseAccountResult';

export interface CloseOrdersResponse {
  'batch_id'?: (string);
  'summary'?: (_mtx_execution_v1_CloseSummary | null);
  'results'?: (_mtx_execution_v1_CloseAccountResult)[];
}

export interface CloseOrdersResponse__Output {
  'batch_id': (string);
  'summary': (_mtx_execution_v1_CloseSummary__Output | null);
  'results': (_mtx_execution_v1_CloseAccountResult__Output)[];
}
