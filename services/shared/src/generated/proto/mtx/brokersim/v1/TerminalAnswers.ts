// Original file: proto/brokersim/v1/brokersim.proto

import type { TerminalAnswer as _mtx_brokersim_v1_TerminalAnswer, TerminalAnswer__Output as _mtx_brokersim_v1_TerminalAnswer__Output } from '../../../mtx/brokersim/v1/TerminalAnswer';

export interface TerminalAnswers {
  'answers'?: (_mtx_brokersim_v1_TerminalAnswer)[];
}

export interface TerminalAnswers__Output {
  'answers': (_mtx_brokersim_v1_TerminalAnswer__Output)[];
}
