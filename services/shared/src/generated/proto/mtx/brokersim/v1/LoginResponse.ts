// Original file: proto/brokersim/v1/brokersim.proto

import type { ServerInfo as _mtx_brokersim_v1_ServerInfo, ServerInfo__Output as _mtx_brokersim_v1_ServerInfo__Output } from '../../../mtx/brokersim/v1/ServerInfo';

export interface LoginResponse {
  'session_id'?: (string);
  'server'?: (_mtx_brokersim_v1_ServerInfo | null);
  'margin_mode'?: (string);
  'balance'?: (number | string);
  'currency'?: (string);
  'leverage'?: (number);
}

export interface LoginResponse__Output {
  'session_id': (string);
  'server': (_mtx_brokersim_v1_ServerInfo__Output | null);
  'margin_mode': (string);
  'balance': (number);
  'currency': (string);
  'leverage': (number);
}
