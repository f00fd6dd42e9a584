// Original file: proto/payments/v1/payments.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CreateTopupRequest as _mtx_payments_v1_CreateTopupRequest, CreateTopupRequest__Output as _mtx_payments_v1_CreateTopupRequest__Output } from '../../../mtx/payments/v1/CreateTopupRequest';
import type { GetTopupRequest as _mtx_payments_v1_GetTopupRequest, GetTopupRequest__Output as _mtx_payments_v1_GetTopupRequest__Output } from '../../../mtx/payments/v1/GetTopupRequest';
import type { HandlePostbackRequest as _mtx_payments_v1_HandlePostbackRequest, HandlePostbackRequest__Output as _mtx_payments_v1_HandlePostbackRequest__Output } from '../../../mtx/payments/v1/HandlePostbackRequest';
import type { HandlePostbackResponse as _mtx_payments_v1_HandlePostbackResponse, HandlePostbackResponse__Output as _mtx_payments_v1_HandlePostbackResponse__Output } from '../../../mtx/payments/v1/HandlePostbackResponse';
import type { ListAssetsRequest as _mtx_payments_v1_ListAssetsRequest, ListAssetsRequest__Output as _mtx_payments_v1_ListAssetsRequest__Output } from '../../../mtx/payments/v1/ListAssetsRequest';
import type { ListAssetsResponse as _mtx_payments_v1_ListAssetsResponse, ListAssetsResponse__Output as _mtx_payments_v1_ListAssetsResponse__Output } from '../../../mtx/payments/v1/ListAssetsResponse';
import type { ListPendingTopupsRequest as _mtx_payments_v1_ListPendingTopupsRequest, ListPendingTopupsRequest__Output as _mtx_payments_v1_ListPendingTopupsRequest__Output } from '../../../mtx/payments/v1/ListPendingTopupsRequest';
import type { ListPendingTopupsResponse as _mtx_payments_v1_ListPendingTopupsResponse, ListPendingTopupsResponse__Output as _mtx_payments_v1_ListPendingTopupsResponse__Output } from '../../../mtx/payments/v1/ListPendingTopupsResponse';
import type { Topup as _mtx_payments_v1_Topup, Topup__Output as _mtx_payments_v1_Topup__Output } from '../../../mtx/payments/v1/Topup';

export interface PaymentsServiceClient extends grpc.Client {
  CreateTopup(argument: _mtx_payments_v1_CreateTopupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  CreateTopup(argument: _mtx_payments_v1_CreateTopupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  CreateTopup(argument: _mtx_payments_v1_CreateTopupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  CreateTopup(argument: _mtx_payments_v1_CreateTopupRequest, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  createTopup(argument: _mtx_payments_v1_CreateTopupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  createTopup(argument: _mtx_payments_v1_CreateTopupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  createTopup(argument: _mtx_payments_v1_CreateTopupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  createTopup(argument: _mtx_payments_v1_CreateTopupRequest, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  
  GetTopup(argument: _mtx_payments_v1_GetTopupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  GetTopup(argument: _mtx_payments_v1_GetTopupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  GetTopup(argument: _mtx_payments_v1_GetTopupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  GetTopup(argument: _mtx_payments_v1_GetTopupRequest, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  getTopup(argument: _mtx_payments_v1_GetTopupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  getTopup(argument: _mtx_payments_v1_GetTopupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  getTopup(argument: _mtx_payments_v1_GetTopupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  getTopup(argument: _mtx_payments_v1_GetTopupRequest, callback: grpc.requestCallback<_mtx_payments_v1_Topup__Output>): grpc.ClientUnaryCall;
  
  HandlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  HandlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  HandlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  HandlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  handlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  handlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  handlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  handlePostback(argument: _mtx_payments_v1_HandlePostbackRequest, callback: grpc.requestCallback<_mtx_payments_v1_HandlePostbackResponse__Output>): grpc.ClientUnaryCall;
  
  ListAssets(argument: _mtx_payments_v1_ListAssetsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  ListAssets(argument: _mtx_payments_v1_ListAssetsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  ListAssets(argument: _mtx_payments_v1_ListAssetsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  ListAssets(argument: _mtx_payments_v1_ListAssetsRequest, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  listAssets(argument: _mtx_payments_v1_ListAssetsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  listAssets(argument: _mtx_payments_v1_ListAssetsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  listAssets(argument: _mtx_payments_v1_ListAssetsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  listAssets(argument: _mtx_payments_v1_ListAssetsRequest, callback: grpc.requestCallback<_mtx_payments_v1_ListAssetsResponse__Output>): grpc.ClientUnaryCall;
  
  ListPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  ListPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  ListPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  ListPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  listPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  listPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  listPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  listPendingTopups(argument: _mtx_payments_v1_ListPendingTopupsRequest, callback: grpc.requestCallback<_mtx_payments_v1_ListPendingTopupsResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface PaymentsServiceHandlers extends grpc.UntypedServiceImplementation {
  CreateTopup: grpc.handleUnaryCall<_mtx_payments_v1_CreateTopupRequest__Output, _mtx_payments_v1_Topup>;
  
  GetTopup: grpc.handleUnaryCall<_mtx_payments_v1_GetTopupRequest__Output, _mtx_payments_v1_Topup>;
  
  HandlePostback: grpc.handleUnaryCall<_mtx_payments_v1_HandlePostbackRequest__Output, _mtx_payments_v1_HandlePostbackResponse>;
  
  ListAssets: grpc.handleUnaryCall<_mtx_payments_v1_ListAssetsRequest__Output, _mtx_payments_v1_ListAssetsResponse>;
  
  ListPendingTopups: grpc.handleUnaryCall<_mtx_payments_v1_ListPendingTopupsRequest__Output, _mtx_payments_v1_ListPendingTopupsResponse>;
  
}

export interface PaymentsServiceDefinition extends grpc.ServiceDefinition {
  CreateTopup: MethodDefinition<_mtx_payments_v1_CreateTopupRequest, _mtx_payments_v1_Topup, _mtx_payments_v1_CreateTopupRequest__Output, _mtx_payments_v1_Topup__Output>
  GetTopup: MethodDefinition<_mtx_payments_v1_GetTopupRequest, _mtx_payments_v1_Topup, _mtx_payments_v1_GetTopupRequest__Output, _mtx_payments_v1_Topup__Output>
  HandlePostback: MethodDefinition<_mtx_payments_v1_HandlePostbackRequest, _mtx_payments_v1_HandlePostbackResponse, _mtx_payments_v1_HandlePostbackRequest__Output, _mtx_payments_v1_HandlePostbackResponse__Output>
  ListAssets: MethodDefinition<_mtx_payments_v1_ListAssetsRequest, _mtx_payments_v1_ListAssetsResponse, _mtx_payments_v1_ListAssetsRequest__Output, _mtx_payments_v1_ListAssetsResponse__Output>
  ListPendingTopups: MethodDefinition<_mtx_payments_v1_ListPendingTopupsRequest, _mtx_payments_v1_ListPendingTopupsResponse, _mtx_payments_v1_ListPendingTopupsRequest__Output, _mtx_payments_v1_ListPendingTopupsResponse__Output>
}
