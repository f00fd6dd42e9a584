import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ListServersReply as _mtx_terminalhost_v1_ListServersReply, ListServersReply__Output as _mtx_terminalhost_v1_ListServersReply__Output } from './mtx/terminalhost/v1/ListServersReply';
import type { ListServersRequest as _mtx_terminalhost_v1_ListServersRequest, ListServersRequest__Output as _mtx_terminalhost_v1_ListServersRequest__Output } from './mtx/terminalhost/v1/ListServersRequest';
import type { SealedSecret as _mtx_terminalhost_v1_SealedSecret, SealedSecret__Output as _mtx_terminalhost_v1_SealedSecret__Output } from './mtx/terminalhost/v1/SealedSecret';
import type { ServerEntry as _mtx_terminalhost_v1_ServerEntry, ServerEntry__Output as _mtx_terminalhost_v1_ServerEntry__Output } from './mtx/terminalhost/v1/ServerEntry';
import type { StartTerminalReply as _mtx_terminalhost_v1_StartTerminalReply, StartTerminalReply__Output as _mtx_terminalhost_v1_StartTerminalReply__Output } from './mtx/terminalhost/v1/StartTerminalReply';
import type { StartTerminalRequest as _mtx_terminalhost_v1_StartTerminalRequest, StartTerminalRequest__Output as _mtx_terminalhost_v1_StartTerminalRequest__Output } from './mtx/terminalhost/v1/StartTerminalRequest';
import type { StopTerminalReply as _mtx_terminalhost_v1_StopTerminalReply, StopTerminalReply__Output as _mtx_terminalhost_v1_StopTerminalReply__Output } from './mtx/terminalhost/v1/StopTerminalReply';
import type { StopTerminalRequest as _mtx_terminalhost_v1_StopTerminalRequest, StopTerminalRequest__Output as _mtx_terminalhost_v1_StopTerminalRequest__Output } from './mtx/terminalhost/v1/StopTerminalRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    terminalhost: {
      v1: {
        ListServersReply: MessageTypeDefinition<_mtx_terminalhost_v1_ListServersReply, _mtx_terminalhost_v1_ListServersReply__Output>
        ListServersRequest: MessageTypeDefinition<_mtx_terminalhost_v1_ListServersRequest, _mtx_terminalhost_v1_ListServersRequest__Output>
        SealedSecret: MessageTypeDefinition<_mtx_terminalhost_v1_SealedSecret, _mtx_terminalhost_v1_SealedSecret__Output>
        ServerEntry: MessageTypeDefinition<_mtx_terminalhost_v1_ServerEntry, _mtx_terminalhost_v1_ServerEntry__Output>
        StartTerminalReply: MessageTypeDefinition<_mtx_terminalhost_v1_StartTerminalReply, _mtx_terminalhost_v1_StartTerminalReply__Output>
        StartTerminalRequest: MessageTypeDefinition<_mtx_terminalhost_v1_StartTerminalRequest, _mtx_terminalhost_v1_StartTerminalRequest__Output>
        StopTerminalReply: MessageTypeDefinition<_mtx_terminalhost_v1_StopTerminalReply, _mtx_terminalhost_v1_StopTerminalReply__Output>
        StopTerminalRequest: MessageTypeDefinition<_mtx_terminalhost_v1_StopTerminalRequest, _mtx_terminalhost_v1_StopTerminalRequest__Output>
      }
    }
  }
}

