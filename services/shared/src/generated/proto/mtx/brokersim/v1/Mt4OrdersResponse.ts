// Original file: proto/brokersim/v1/brokersim.proto

import type { Mt4Order as _mtx_brokersim_v1_Mt4Order, Mt4Order__Output as _mtx_brokersim_v1_Mt4Order__Output } from '../../../mtx/brokersim/v1/Mt4Order';

export interface Mt4OrdersResponse {
  'orders'?: (_mtx_brokersim_v1_Mt4Order)[];
}

export interface Mt4OrdersResponse__Output {
  'orders': (_mtx_brokersim_v1_Mt4Order__Output)[];
}
