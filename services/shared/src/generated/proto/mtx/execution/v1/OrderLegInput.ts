// Original file: proto/execution/v1/execution.proto

import type { OrderFields as _mtx_execution_v1_OrderFields, OrderFields__Output as _mtx_execution_v1_OrderFields__Output } from '../../../mtx/execution/v1/OrderFields';

export interface OrderLegInput {
  'account_id'?: (string);
  'fields'?: (_mtx_execution_v1_OrderFields | null);
}

export interface OrderLegInput__Output {
  'account_id': (string);
  'fields': (_mtx_execution_v1_OrderFields__Output | null);
}
