// Original file: proto/execution/v1/execution.proto

import type { PlaceSummary as _mtx_execution_v1_PlaceSummary, PlaceSummary__Output as _mtx_execution_v1_PlaceSummary__Output } from '../../../mtx/execution/v1/PlaceSummary';
import type { OrderLegResult as _mtx_execution_v1_OrderLegResult, OrderLegResult__Output as _mtx_execution_v1_OrderLegResult__Output } from '../../../mtx/execution/v1/OrderLegResult';

export interface PlaceOrdersResponse {
  'batch_id'?: (string);
  'summary'?: (_mtx_execution_v1_PlaceSummary | null);
  'results'?: (_mtx_execution_v1_OrderLegResult)[];
}

export interface PlaceOrdersResponse__Output {
  'batch_id': (string);
  'summary': (_mtx_execution_v1_PlaceSummary__Output | null);
  'results': (_mtx_execution_v1_OrderLegResult__Output)[];
}
