// Original file: proto/brokersim/v1/brokersim.proto

import type { Mt5Position as _mtx_brokersim_v1_Mt5Position, Mt5Position__Output as _mtx_brokersim_v1_Mt5Position__Output } from '../../../mtx/brokersim/v1/Mt5Position';

export interface Mt5PositionsResponse {
  'positions'?: (_mtx_brokersim_v1_Mt5Position)[];
}

export interface Mt5PositionsResponse__Output {
  'positions': (_mtx_brokersim_v1_Mt5Position__Output)[];
}
