// Original file: proto/brokersim/v1/brokersim.proto

import type { Mt4Order as _mtx_brokersim_v1_Mt4Order, Mt4Order__Output as _mtx_brokersim_v1_Mt4Order__Output } from '../../../mtx/brokersim/v1/Mt4Order';
import type { Mt5Position as _mtx_brokersim_v1_Mt5Position, Mt5Position__Output as _mtx_brokersim_v1_Mt5Position__Output } from '../../../mtx/brokersim/v1/Mt5Position';
import type { Mt5Order as _mtx_brokersim_v1_Mt5Order, Mt5Order__Output as _mtx_brokersim_v1_Mt5Order__Output } from '../../../mtx/brokersim/v1/Mt5Order';

export interface GetTicketResponse {
  'found'?: (boolean);
  'mt4_order'?: (_mtx_brokersim_v1_Mt4Order | null);
  'mt5_position'?: (_mtx_brokersim_v1_Mt5Position | null);
  'mt5_order'?: (_mtx_brokersim_v1_Mt5Order | null);
  '_mt4_order'?: "mt4_order";
  '_mt5_position'?: "mt5_position";
  '_mt5_order'?: "mt5_order";
}

export interface GetTicketResponse__Output {
  'found': (boolean);
  'mt4_order'?: (_mtx_brokersim_v1_Mt4Order__Output | null);
  'mt5_position'?: (_mtx_brokersim_v1_Mt5Position__Output | null);
  'mt5_order'?: (_mtx_brokersim_v1_Mt5Order__Output | null);
  '_mt4_order'?: "mt4_order";
  '_mt5_position'?: "mt5_position";
  '_mt5_order'?: "mt5_order";
}
