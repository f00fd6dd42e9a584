import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { BrokerSimServiceClient as _mtx_brokersim_v1_BrokerSimServiceClient, BrokerSimServiceDefinition as _mtx_brokersim_v1_BrokerSimServiceDefinition } from './mtx/brokersim/v1/BrokerSimService';
import type { GetServerInfoRequest as _mtx_brokersim_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _mtx_brokersim_v1_GetServerInfoRequest__Output } from './mtx/brokersim/v1/GetServerInfoRequest';
import type { ListServersRequest as _mtx_brokersim_v1_ListServersRequest, ListServersRequest__Output as _mtx_brokersim_v1_ListServersRequest__Output } from './mtx/brokersim/v1/ListServersRequest';
import type { ListServersResponse as _mtx_brokersim_v1_ListServersResponse, ListServersResponse__Output as _mtx_brokersim_v1_ListServersResponse__Output } from './mtx/brokersim/v1/ListServersResponse';
import type { ServerInfo as _mtx_brokersim_v1_ServerInfo, ServerInfo__Output as _mtx_brokersim_v1_ServerInfo__Output } from './mtx/brokersim/v1/ServerInfo';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    brokersim: {
      v1: {
        BrokerSimService: SubtypeConstructor<typeof grpc.Client, _mtx_brokersim_v1_BrokerSimServiceClient> & { service: _mtx_brokersim_v1_BrokerSimServiceDefinition }
        GetServerInfoRequest: MessageTypeDefinition<_mtx_brokersim_v1_GetServerInfoRequest, _mtx_brokersim_v1_GetServerInfoRequest__Output>
        ListServersRequest: MessageTypeDefinition<_mtx_brokersim_v1_ListServersRequest, _mtx_brokersim_v1_ListServersRequest__Output>
        ListServersResponse: MessageTypeDefinition<_mtx_brokersim_v1_ListServersResponse, _mtx_brokersim_v1_ListServersResponse__Output>
        ServerInfo: MessageTypeDefinition<_mtx_brokersim_v1_ServerInfo, _mtx_brokersim_v1_ServerInfo__Output>
      }
    }
  }
}

