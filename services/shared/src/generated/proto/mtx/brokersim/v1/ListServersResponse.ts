// Original file: proto/brokersim/v1/brokersim.proto

import type { ServerInfo as _mtx_brokersim_v1_ServerInfo, ServerInfo__Output as _mtx_brokersim_v1_ServerInfo__Output } from '../../../mtx/brokersim/v1/ServerInfo';

export interface ListServersResponse {
  'servers'?: (_mtx_brokersim_v1_ServerInfo)[];
}

export interface ListServersResponse__Output {
  'servers': (_mtx_brokersim_v1_ServerInfo__Output)[];
}
