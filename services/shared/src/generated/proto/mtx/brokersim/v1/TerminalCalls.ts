// Original file: proto/brokersim/v1/brokersim.proto

import type { TerminalCall as _mtx_brokersim_v1_TerminalCall, TerminalCall__Output as _mtx_brokersim_v1_TerminalCall__Output } from '../../../mtx/brokersim/v1/TerminalCall';

export interface TerminalCalls {
  'calls'?: (_mtx_brokersim_v1_TerminalCall)[];
}

export interface TerminalCalls__Output {
  'calls': (_mtx_brokersim_v1_TerminalCall__Output)[];
}
