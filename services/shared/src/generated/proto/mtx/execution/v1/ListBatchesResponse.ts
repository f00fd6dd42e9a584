// Original file: proto/execution/v1/execution.proto

import type { BatchListItem as _mtx_execution_v1_BatchListItem, BatchListItem__Output as _mtx_execution_v1_BatchListItem__Output } from '../../../mtx/execution/v1/BatchListItem';

export interface ListBatchesResponse {
  'data'?: (_mtx_execution_v1_BatchListItem)[];
  'has_more'?: (boolean);
}

export interface ListBatchesResponse__Output {
  'data': (_mtx_execution_v1_BatchListItem__Output)[];
  'has_more': (boolean);
}
