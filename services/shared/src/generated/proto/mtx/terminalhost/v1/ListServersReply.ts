// Original file: proto/terminalhost/v1/terminal_host.proto

import type { ServerEntry as _mtx_terminalhost_v1_ServerEntry, ServerEntry__Output as _mtx_terminalhost_v1_ServerEntry__Output } from '../../../mtx/terminalhost/v1/ServerEntry';

export interface ListServersReply {
  'servers'?: (_mtx_terminalhost_v1_ServerEntry)[];
}

export interface ListServersReply__Output {
  'servers': (_mtx_terminalhost_v1_ServerEntry__Output)[];
}
