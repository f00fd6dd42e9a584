// Original file: proto/brokersim/v1/brokersim.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetServerInfoRequest as _mtx_brokersim_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _mtx_brokersim_v1_GetServerInfoRequest__Output } from '../../../mtx/brokersim/v1/GetServerInfoRequest';
import type { ListServersRequest as _mtx_brokersim_v1_ListServersRequest, ListServersRequest__Output as _mtx_brokersim_v1_ListServersRequest__Output } from '../../../mtx/brokersim/v1/ListServersRequest';
import type { ListServersResponse as _mtx_brokersim_v1_ListServersResponse, ListServersResponse__Output as _mtx_brokersim_v1_ListServersResponse__Output } from '../../../mtx/brokersim/v1/ListServersResponse';
import type { ServerInfo as _mtx_brokersim_v1_ServerInfo, ServerInfo__Output as _mtx_brokersim_v1_ServerInfo__Output } from '../../../mtx/brokersim/v1/ServerInfo';

export interface BrokerSimServiceClient extends grpc.Client {
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface BrokerSimServiceHandlers extends grpc.UntypedServiceImplementation {
  GetServerInfo: grpc.handleUnaryCall<_mtx_brokersim_v1_GetServerInfoRequest__Output, _mtx_brokersim_v1_ServerInfo>;
  
  ListServers: grpc.handleUnaryCall<_mtx_brokersim_v1_ListServersRequest__Output, _mtx_brokersim_v1_ListServersResponse>;
  
}

export interface BrokerSimServiceDefinition extends grpc.ServiceDefinition {
  GetServerInfo: MethodDefinition<_mtx_brokersim_v1_GetServerInfoRequest, _mtx_brokersim_v1_ServerInfo, _mtx_brokersim_v1_GetServerInfoRequest__Output, _mtx_brokersim_v1_ServerInfo__Output>
  ListServers: MethodDefinition<_mtx_brokersim_v1_ListServersRequest, _mtx_brokersim_v1_ListServersResponse, _mtx_brokersim_v1_ListServersRequest__Output, _mtx_brokersim_v1_ListServersResponse__Output>
}
