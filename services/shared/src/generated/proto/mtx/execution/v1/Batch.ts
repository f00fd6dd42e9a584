// Original file: proto/execution/v1/execution.proto

import type { PlaceSummary as _mtx_execution_v1_PlaceSummary, PlaceSummary__Output as _mtx_execution_v1_PlaceSummary__Output } from '../../../mtx/execution/v1/PlaceSummary';
import type { OrderLegResult as _mtx_execution_v1_OrderLegResult, OrderLegResult__Output as _mtx_execution_v1_OrderLegResult__Output } from '../../../mtx/execution/v1/OrderLegResult';
import type { CloseSummary as _mtx_execution_v1_CloseSummary, CloseSummary__Output as _mtx_execution_v1_CloseSummary__Output } from '../../../mtx/execution/v1/CloseSummary';
import type { CloseAccountResult as _mtx_execution_v1_CloseAccountResult, CloseAccountResult__Output as _mtx_execution_v1_CloseAccountResult__Output } from '../../../mtx/execution/v1/CloseAccountResult';

export interface Batch {
  'batch_id'?: (string);
  'kind'?: (string);
  'created_at'?: (string);
  'settled'?: (boolean);
  'orders_summary'?: (_mtx_execution_v1_PlaceSummary | null);
  'orders'?: (_mtx_execution_v1_OrderLegResult)[];
  'close_summary'?: (_mtx_execution_v1_CloseSummary | null);
  'accounts'?: (_mtx_execution_v1_CloseAccountResult)[];
  '_orders_summary'?: "orders_summary";
  '_close_summary'?: "close_summary";
}

export interface Batch__Output {
  'batch_id': (string);
  'kind': (string);
  'created_at': (string);
  'settled': (boolean);
  'orders_summary'?: (_mtx_execution_v1_PlaceSummary__Output | null);
  'orders': (_mtx_execution_v1_OrderLegResult__Output)[];
  'close_summary'?: (_mtx_execution_v1_CloseSummary__Output | null);
  'accounts': (_mtx_execution_v1_CloseAccountResult__Output)[];
  '_orders_summary'?: "orders_summary";
  '_close_summary'?: "close_summary";
}
