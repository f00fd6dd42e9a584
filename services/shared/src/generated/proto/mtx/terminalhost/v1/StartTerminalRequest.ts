// Original file: proto/terminalhost/v1/terminal_host.proto

import type { SealedSecret as _mtx_terminalhost_v1_SealedSecret, SealedSecret__Output as _mtx_terminalhost_v1_SealedSecret__Output } from '../../../mtx/terminalhost/v1/SealedSecret';
import type { Long } from '@grpc/proto-loader';

export interface StartTerminalRequest {
  'account_id'?: (string);
  'server'?: (string);
  'login'?: (string);
  'password'?: (_mtx_terminalhost_v1_SealedSecret | null);
  'token'?: (_mtx_terminalhost_v1_SealedSecret | null);
  'deadline_unix_ms'?: (number | string | Long);
}

export interface StartTerminalRequest__Output {
  'account_id': (string);
  'server': (string);
  'login': (string);
  'password': (_mtx_terminalhost_v1_SealedSecret__Output | null);
  'token': (_mtx_terminalhost_v1_SealedSecret__Output | null);
  'deadline_unix_ms': (number);
}
