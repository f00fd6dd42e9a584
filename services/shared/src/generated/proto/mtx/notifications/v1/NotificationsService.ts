// Original file: proto/notifications/v1/notifications.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CreateEndpointRequest as _mtx_notifications_v1_CreateEndpointRequest, CreateEndpointRequest__Output as _mtx_notifications_v1_CreateEndpointRequest__Output } from '../../../mtx/notifications/v1/CreateEndpointRequest';
import type { DeleteEndpointRequest as _mtx_notifications_v1_DeleteEndpointRequest, DeleteEndpointRequest__Output as _mtx_notifications_v1_DeleteEndpointRequest__Output } from '../../../mtx/notifications/v1/DeleteEndpointRequest';
import type { Endpoint as _mtx_notifications_v1_Endpoint, Endpoint__Output as _mtx_notifications_v1_Endpoint__Output } from '../../../mtx/notifications/v1/Endpoint';
import type { ListEndpointsRequest as _mtx_notifications_v1_ListEndpointsRequest, ListEndpointsRequest__Output as _mtx_notifications_v1_ListEndpointsRequest__Output } from '../../../mtx/notifications/v1/ListEndpointsRequest';
import type { ListEndpointsResponse as _mtx_notifications_v1_ListEndpointsResponse, ListEndpointsResponse__Output as _mtx_notifications_v1_ListEndpointsResponse__Output } from '../../../mtx/notifications/v1/ListEndpointsResponse';
import type { ListEventsRequest as _mtx_notifications_v1_ListEventsRequest, ListEventsRequest__Output as _mtx_notifications_v1_ListEventsRequest__Output } from '../../../mtx/notifications/v1/ListEventsRequest';
import type { ListEventsResponse as _mtx_notifications_v1_ListEventsResponse, ListEventsResponse__Output as _mtx_notifications_v1_ListEventsResponse__Output } from '../../../mtx/notifications/v1/ListEventsResponse';
import type { TestEndpointRequest as _mtx_notifications_v1_TestEndpointRequest, TestEndpointRequest__Output as _mtx_notifications_v1_TestEndpointRequest__Output } from '../../../mtx/notifications/v1/TestEndpointRequest';
import type { TestEndpointResponse as _mtx_notifications_v1_TestEndpointResponse, TestEndpointResponse__Output as _mtx_notifications_v1_TestEndpointResponse__Output } from '../../../mtx/notifications/v1/TestEndpointResponse';

export interface NotificationsServiceClient extends grpc.Client {
  CreateEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  CreateEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  CreateEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  CreateEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  createEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  createEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  createEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  createEndpoint(argument: _mtx_notifications_v1_CreateEndpointRequest, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  
  DeleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  DeleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  DeleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  DeleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  deleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  deleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  deleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  deleteEndpoint(argument: _mtx_notifications_v1_DeleteEndpointRequest, callback: grpc.requestCallback<_mtx_notifications_v1_Endpoint__Output>): grpc.ClientUnaryCall;
  
  ListEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  ListEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  ListEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  ListEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  listEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  listEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  listEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  listEndpoints(argument: _mtx_notifications_v1_ListEndpointsRequest, callback: grpc.requestCallback<_mtx_notifications_v1_ListEndpointsResponse__Output>): grpc.ClientUnaryCall;
  
  ListEvents(argument: _mtx_notifications_v1_ListEventsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  ListEvents(argument: _mtx_notifications_v1_ListEventsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  ListEvents(argument: _mtx_notifications_v1_ListEventsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  ListEvents(argument: _mtx_notifications_v1_ListEventsRequest, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  listEvents(argument: _mtx_notifications_v1_ListEventsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  listEvents(argument: _mtx_notifications_v1_ListEventsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  listEvents(argument: _mtx_notifications_v1_ListEventsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  listEvents(argument: _mtx_notifications_v1_ListEventsRequest, callback: grpc.requestCallback<_mtx_notifications_v1_ListEventsResponse__Output>): grpc.ClientUnaryCall;
  
  TestEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  TestEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  TestEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  TestEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  testEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  testEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  testEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  testEndpoint(argument: _mtx_notifications_v1_TestEndpointRequest, callback: grpc.requestCallback<_mtx_notifications_v1_TestEndpointResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface NotificationsServiceHandlers extends grpc.UntypedServiceImplementation {
  CreateEndpoint: grpc.handleUnaryCall<_mtx_notifications_v1_CreateEndpointRequest__Output, _mtx_notifications_v1_Endpoint>;
  
  DeleteEndpoint: grpc.handleUnaryCall<_mtx_notifications_v1_DeleteEndpointRequest__Output, _mtx_notifications_v1_Endpoint>;
  
  ListEndpoints: grpc.handleUnaryCall<_mtx_notifications_v1_ListEndpointsRequest__Output, _mtx_notifications_v1_ListEndpointsResponse>;
  
  ListEvents: grpc.handleUnaryCall<_mtx_notifications_v1_ListEventsRequest__Output, _mtx_notifications_v1_ListEventsResponse>;
  
  TestEndpoint: grpc.handleUnaryCall<_mtx_notifications_v1_TestEndpointRequest__Output, _mtx_notifications_v1_TestEndpointResponse>;
  
}

export interface NotificationsServiceDefinition extends grpc.ServiceDefinition {
  CreateEndpoint: MethodDefinition<_mtx_notifications_v1_CreateEndpointRequest, _mtx_notifications_v1_Endpoint, _mtx_notifications_v1_CreateEndpointRequest__Output, _mtx_notifications_v1_Endpoint__Output>
  DeleteEndpoint: MethodDefinition<_mtx_notifications_v1_DeleteEndpointRequest, _mtx_notifications_v1_Endpoint, _mtx_notifications_v1_DeleteEndpointRequest__Output, _mtx_notifications_v1_Endpoint__Output>
  ListEndpoints: MethodDefinition<_mtx_notifications_v1_ListEndpointsRequest, _mtx_notifications_v1_ListEndpointsResponse, _mtx_notifications_v1_ListEndpointsRequest__Output, _mtx_notifications_v1_ListEndpointsResponse__Output>
  ListEvents: MethodDefinition<_mtx_notifications_v1_ListEventsRequest, _mtx_notifications_v1_ListEventsResponse, _mtx_notifications_v1_ListEventsRequest__Output, _mtx_notifications_v1_ListEventsResponse__Output>
  TestEndpoint: MethodDefinition<_mtx_notifications_v1_TestEndpointRequest, _mtx_notifications_v1_TestEndpointResponse, _mtx_notifications_v1_TestEndpointRequest__Output, _mtx_notifications_v1_TestEndpointResponse__Output>
}
