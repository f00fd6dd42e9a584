// Original file: proto/brokersim/v1/brokersim.proto

import type { Mt5Order as _mtx_brokersim_v1_Mt5Order, Mt5Order__Output as _mtx_brokersim_v1_Mt5Order__Output } from '../../../mtx/brokersim/v1/Mt5Order';

export interface Mt5OrdersResponse {
  'orders'?: (_mtx_brokersim_v1_Mt5Order)[];
}

export interface Mt5OrdersResponse__Output {
  'orders': (_mtx_brokersim_v1_Mt5Order__Output)[];
}
