// Original file: proto/execution/v1/execution.proto

import type { OrderFields as _mtx_execution_v1_OrderFields, OrderFields__Output as _mtx_execution_v1_OrderFields__Output } from '../../../mtx/execution/v1/OrderFields';
import type { OrderLegInput as _mtx_execution_v1_OrderLegInput, OrderLegInput__Output as _mtx_execution_v1_OrderLegInput__Output } from '../../../mtx/execution/v1/OrderLegInput';

export interface PlaceOrdersRequest {
  'customer_id'?: (string);
  'defaults'?: (_mtx_execution_v1_OrderFields | null);
  'orders'?: (_mtx_execution_v1_OrderLegInput)[];
  'batch_id'?: (string);
  '_defaults'?: "defaults";
}

export interface PlaceOrdersRequest__Output {
  'customer_id': (string);
  'defaults'?: (_mtx_execution_v1_OrderFields__Output | null);
  'orders': (_mtx_execution_v1_OrderLegInput__Output)[];
  'batch_id': (string);
  '_defaults'?: "defaults";
}
