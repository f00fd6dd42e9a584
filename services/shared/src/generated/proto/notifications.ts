import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CreateEndpointRequest as _mtx_notifications_v1_CreateEndpointRequest, CreateEndpointRequest__Output as _mtx_notifications_v1_CreateEndpointRequest__Output } from './mtx/notifications/v1/CreateEndpointRequest';
import type { DeleteEndpointRequest as _mtx_notifications_v1_DeleteEndpointRequest, DeleteEndpointRequest__Output as _mtx_notifications_v1_DeleteEndpointRequest__Output } from './mtx/notifications/v1/DeleteEndpointRequest';
import type { Endpoint as _mtx_notifications_v1_Endpoint, Endpoint__Output as _mtx_notifications_v1_Endpoint__Output } from './mtx/notifications/v1/Endpoint';
import type { Event as _mtx_notifications_v1_Event, Event__Output as _mtx_notifications_v1_Event__Output } from './mtx/notifications/v1/Event';
import type { ListEndpointsRequest as _mtx_notifications_v1_ListEndpointsRequest, ListEndpointsRequest__Output as _mtx_notifications_v1_ListEndpointsRequest__Output } from './mtx/notifications/v1/ListEndpointsRequest';
import type { ListEndpointsResponse as _mtx_notifications_v1_ListEndpointsResponse, ListEndpointsResponse__Output as _mtx_notifications_v1_ListEndpointsResponse__Output } from './mtx/notifications/v1/ListEndpointsResponse';
import type { ListEventsRequest as _mtx_notifications_v1_ListEventsRequest, ListEventsRequest__Output as _mtx_notifications_v1_ListEventsRequest__Output } from './mtx/notifications/v1/ListEventsRequest';
import type { ListEventsResponse as _mtx_notifications_v1_ListEventsResponse, ListEventsResponse__Output as _mtx_notifications_v1_ListEventsResponse__Output } from './mtx/notifications/v1/ListEventsResponse';
import type { NotificationsServiceClient as _mtx_notifications_v1_NotificationsServiceClient, NotificationsServiceDefinition as _mtx_notifications_v1_NotificationsServiceDefinition } from './mtx/notifications/v1/NotificationsService';
import type { TestEndpointRequest as _mtx_notifications_v1_TestEndpointRequest, TestEndpointRequest__Output as _mtx_notifications_v1_TestEndpointRequest__Output } from './mtx/notifications/v1/TestEndpointRequest';
import type { TestEndpointResponse as _mtx_notifications_v1_TestEndpointResponse, TestEndpointResponse__Output as _mtx_notifications_v1_TestEndpointResponse__Output } from './mtx/notifications/v1/TestEndpointResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    notifications: {
      v1: {
        CreateEndpointRequest: MessageTypeDefinition<_mtx_notifications_v1_CreateEndpointRequest, _mtx_notifications_v1_CreateEndpointRequest__Output>
        DeleteEndpointRequest: MessageTypeDefinition<_mtx_notifications_v1_DeleteEndpointRequest, _mtx_notifications_v1_DeleteEndpointRequest__Output>
        Endpoint: MessageTypeDefinition<_mtx_notifications_v1_Endpoint, _mtx_notifications_v1_Endpoint__Output>
        Event: MessageTypeDefinition<_mtx_notifications_v1_Event, _mtx_notifications_v1_Event__Output>
        ListEndpointsRequest: MessageTypeDefinition<_mtx_notifications_v1_ListEndpointsRequest, _mtx_notifications_v1_ListEndpointsRequest__Output>
        ListEndpointsResponse: MessageTypeDefinition<_mtx_notifications_v1_ListEndpointsResponse, _mtx_notifications_v1_ListEndpointsResponse__Output>
        ListEventsRequest: MessageTypeDefinition<_mtx_notifications_v1_ListEventsRequest, _mtx_notifications_v1_ListEventsRequest__Output>
        ListEventsResponse: MessageTypeDefinition<_mtx_notifications_v1_ListEventsResponse, _mtx_notifications_v1_ListEventsResponse__Output>
        NotificationsService: SubtypeConstructor<typeof grpc.Client, _mtx_notifications_v1_NotificationsServiceClient> & { service: _mtx_notifications_v1_NotificationsServiceDefinition }
        TestEndpointRequest: MessageTypeDefinition<_mtx_notifications_v1_TestEndpointRequest, _mtx_notifications_v1_TestEndpointRequest__Output>
        TestEndpointResponse: MessageTypeDefinition<_mtx_notifications_v1_TestEndpointResponse, _mtx_notifications_v1_TestEndpointResponse__Output>
      }
    }
  }
}

