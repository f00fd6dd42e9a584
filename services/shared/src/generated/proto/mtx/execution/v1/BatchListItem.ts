// Original file: proto/execution/v1/execution.proto

import type { PlaceSummary as _mtx_execution_v1_PlaceSummary, PlaceSummary__Output as _mtx_execution_v1_PlaceSummary__Output } from '../../../mtx/execution/v1/PlaceSummary';
import type { CloseSummary as _mtx_execution_v1_CloseSummary, CloseSummary__Output as _mtx_execution_v1_CloseSummary__Output } from '../../../mtx/execution/v1/CloseSummary';

export interface BatchListItem {
  'batch_id'?: (string);
  'kind'?: (string);
  'created_at'?: (string);
  'settled'?: (boolean);
  'orders_summary'?: (_mtx_execution_v1_PlaceSummary | null);
  'close_summary'?: (_mtx_execution_v1_CloseSummary | null);
  '_orders_summary'?: "orders_summary";
  '_close_summary'?: "close_summary";
}

export interface BatchListItem__Output {
  'batch_id': (string);
  'kind': (string);
  'created_at': (string);
  'settled': (boolean);
  'orders_summary'?: (_mtx_execution_v1_PlaceSummary__Output | null);
  'close_summary'?: (_mtx_execution_v1_CloseSummary__Output | null);
  '_orders_summary'?: "orders_summary";
  '_close_summary'?: "close_summary";
}
