// Original file: proto/billing/v1/billing.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AssignSeatRequest as _mtx_billing_v1_AssignSeatRequest, AssignSeatRequest__Output as _mtx_billing_v1_AssignSeatRequest__Output } from '../../../mtx/billing/v1/AssignSeatRequest';
import type { CancelServerRequest as _mtx_billing_v1_CancelServerRequest, CancelServerRequest__Output as _mtx_billing_v1_CancelServerRequest__Output } from '../../../mtx/billing/v1/CancelServerRequest';
import type { CreateServerRequest as _mtx_billing_v1_CreateServerRequest, CreateServerRequest__Output as _mtx_billing_v1_CreateServerRequest__Output } from '../../../mtx/billing/v1/CreateServerRequest';
import type { GetSubscriptionRequest as _mtx_billing_v1_GetSubscriptionRequest, GetSubscriptionRequest__Output as _mtx_billing_v1_GetSubscriptionRequest__Output } from '../../../mtx/billing/v1/GetSubscriptionRequest';
import type { GetUpcomingRequest as _mtx_billing_v1_GetUpcomingRequest, GetUpcomingRequest__Output as _mtx_billing_v1_GetUpcomingRequest__Output } from '../../../mtx/billing/v1/GetUpcomingRequest';
import type { ListServerPlansRequest as _mtx_billing_v1_ListServerPlansRequest, ListServerPlansRequest__Output as _mtx_billing_v1_ListServerPlansRequest__Output } from '../../../mtx/billing/v1/ListServerPlansRequest';
import type { ListServerPlansResponse as _mtx_billing_v1_ListServerPlansResponse, ListServerPlansResponse__Output as _mtx_billing_v1_ListServerPlansResponse__Output } from '../../../mtx/billing/v1/ListServerPlansResponse';
import type { ListServersRequest as _mtx_billing_v1_ListServersRequest, ListServersRequest__Output as _mtx_billing_v1_ListServersRequest__Output } from '../../../mtx/billing/v1/ListServersRequest';
import type { ListServersResponse as _mtx_billing_v1_ListServersResponse, ListServersResponse__Output as _mtx_billing_v1_ListServersResponse__Output } from '../../../mtx/billing/v1/ListServersResponse';
import type { ReleaseSeatRequest as _mtx_billing_v1_ReleaseSeatRequest, ReleaseSeatRequest__Output as _mtx_billing_v1_ReleaseSeatRequest__Output } from '../../../mtx/billing/v1/ReleaseSeatRequest';
import type { RunSchedulerTickRequest as _mtx_billing_v1_RunSchedulerTickRequest, RunSchedulerTickRequest__Output as _mtx_billing_v1_RunSchedulerTickRequest__Output } from '../../../mtx/billing/v1/RunSchedulerTickRequest';
import type { SchedulerTickReport as _mtx_billing_v1_SchedulerTickReport, SchedulerTickReport__Output as _mtx_billing_v1_SchedulerTickReport__Output } from '../../../mtx/billing/v1/SchedulerTickReport';
import type { Seat as _mtx_billing_v1_Seat, Seat__Output as _mtx_billing_v1_Seat__Output } from '../../../mtx/billing/v1/Seat';
import type { Server as _mtx_billing_v1_Server, Server__Output as _mtx_billing_v1_Server__Output } from '../../../mtx/billing/v1/Server';
import type { Subscription as _mtx_billing_v1_Subscription, Subscription__Output as _mtx_billing_v1_Subscription__Output } from '../../../mtx/billing/v1/Subscription';
import type { Upcoming as _mtx_billing_v1_Upcoming, Upcoming__Output as _mtx_billing_v1_Upcoming__Output } from '../../../mtx/billing/v1/Upcoming';
import type { UpdateSubscriptionRequest as _mtx_billing_v1_UpdateSubscriptionRequest, UpdateSubscriptionRequest__Output as _mtx_billing_v1_UpdateSubscriptionRequest__Output } from '../../../mtx/billing/v1/UpdateSubscriptionRequest';

export interface BillingServiceClient extends grpc.Client {
  AssignSeat(argument: _mtx_billing_v1_AssignSeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  AssignSeat(argument: _mtx_billing_v1_AssignSeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  AssignSeat(argument: _mtx_billing_v1_AssignSeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  AssignSeat(argument: _mtx_billing_v1_AssignSeatRequest, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  assignSeat(argument: _mtx_billing_v1_AssignSeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  assignSeat(argument: _mtx_billing_v1_AssignSeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  assignSeat(argument: _mtx_billing_v1_AssignSeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  assignSeat(argument: _mtx_billing_v1_AssignSeatRequest, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  
  CancelServer(argument: _mtx_billing_v1_CancelServerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  CancelServer(argument: _mtx_billing_v1_CancelServerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  CancelServer(argument: _mtx_billing_v1_CancelServerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  CancelServer(argument: _mtx_billing_v1_CancelServerRequest, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  cancelServer(argument: _mtx_billing_v1_CancelServerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  cancelServer(argument: _mtx_billing_v1_CancelServerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  cancelServer(argument: _mtx_billing_v1_CancelServerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  cancelServer(argument: _mtx_billing_v1_CancelServerRequest, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  
  CreateServer(argument: _mtx_billing_v1_CreateServerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  CreateServer(argument: _mtx_billing_v1_CreateServerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  CreateServer(argument: _mtx_billing_v1_CreateServerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  CreateServer(argument: _mtx_billing_v1_CreateServerRequest, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  createServer(argument: _mtx_billing_v1_CreateServerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  createServer(argument: _mtx_billing_v1_CreateServerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  createServer(argument: _mtx_billing_v1_CreateServerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  createServer(argument: _mtx_billing_v1_CreateServerRequest, callback: grpc.requestCallback<_mtx_billing_v1_Server__Output>): grpc.ClientUnaryCall;
  
  GetSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  GetSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  GetSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  GetSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  getSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  getSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  getSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  getSubscription(argument: _mtx_billing_v1_GetSubscriptionRequest, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  
  GetUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  GetUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  GetUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  GetUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  getUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  getUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  getUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  getUpcoming(argument: _mtx_billing_v1_GetUpcomingRequest, callback: grpc.requestCallback<_mtx_billing_v1_Upcoming__Output>): grpc.ClientUnaryCall;
  
  ListServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  ListServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  ListServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  ListServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  listServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  listServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  listServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  listServerPlans(argument: _mtx_billing_v1_ListServerPlansRequest, callback: grpc.requestCallback<_mtx_billing_v1_ListServerPlansResponse__Output>): grpc.ClientUnaryCall;
  
  ListServers(argument: _mtx_billing_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_billing_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_billing_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_billing_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_billing_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_billing_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_billing_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_billing_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_billing_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  
  ReleaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  ReleaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  ReleaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  ReleaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  releaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  releaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  releaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  releaseSeat(argument: _mtx_billing_v1_ReleaseSeatRequest, callback: grpc.requestCallback<_mtx_billing_v1_Seat__Output>): grpc.ClientUnaryCall;
  
  RunSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  RunSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  RunSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  RunSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  runSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  runSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  runSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  runSchedulerTick(argument: _mtx_billing_v1_RunSchedulerTickRequest, callback: grpc.requestCallback<_mtx_billing_v1_SchedulerTickReport__Output>): grpc.ClientUnaryCall;
  
  UpdateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  UpdateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  UpdateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  UpdateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  updateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  updateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  updateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  updateSubscription(argument: _mtx_billing_v1_UpdateSubscriptionRequest, callback: grpc.requestCallback<_mtx_billing_v1_Subscription__Output>): grpc.ClientUnaryCall;
  
}

export interface BillingServiceHandlers extends grpc.UntypedServiceImplementation {
  AssignSeat: grpc.handleUnaryCall<_mtx_billing_v1_AssignSeatRequest__Output, _mtx_billing_v1_Seat>;
  
  CancelServer: grpc.handleUnaryCall<_mtx_billing_v1_CancelServerRequest__Output, _mtx_billing_v1_Server>;
  
  CreateServer: grpc.handleUnaryCall<_mtx_billing_v1_CreateServerRequest__Output, _mtx_billing_v1_Server>;
  
  GetSubscription: grpc.handleUnaryCall<_mtx_billing_v1_GetSubscriptionRequest__Output, _mtx_billing_v1_Subscription>;
  
  GetUpcoming: grpc.handleUnaryCall<_mtx_billing_v1_GetUpcomingRequest__Output, _mtx_billing_v1_Upcoming>;
  
  ListServerPlans: grpc.handleUnaryCall<_mtx_billing_v1_ListServerPlansRequest__Output, _mtx_billing_v1_ListServerPlansResponse>;
  
  ListServers: grpc.handleUnaryCall<_mtx_billing_v1_ListServersRequest__Output, _mtx_billing_v1_ListServersResponse>;
  
  ReleaseSeat: grpc.handleUnaryCall<_mtx_billing_v1_ReleaseSeatRequest__Output, _mtx_billing_v1_Seat>;
  
  RunSchedulerTick: grpc.handleUnaryCall<_mtx_billing_v1_RunSchedulerTickRequest__Output, _mtx_billing_v1_SchedulerTickReport>;
  
  UpdateSubscription: grpc.handleUnaryCall<_mtx_billing_v1_UpdateSubscriptionRequest__Output, _mtx_billing_v1_Subscription>;
  
}

export interface BillingServiceDefinition extends grpc.ServiceDefinition {
  AssignSeat: MethodDefinition<_mtx_billing_v1_AssignSeatRequest, _mtx_billing_v1_Seat, _mtx_billing_v1_AssignSeatRequest__Output, _mtx_billing_v1_Seat__Output>
  CancelServer: MethodDefinition<_mtx_billing_v1_CancelServerRequest, _mtx_billing_v1_Server, _mtx_billing_v1_CancelServerRequest__Output, _mtx_billing_v1_Server__Output>
  CreateServer: MethodDefinition<_mtx_billing_v1_CreateServerRequest, _mtx_billing_v1_Server, _mtx_billing_v1_CreateServerRequest__Output, _mtx_billing_v1_Server__Output>
  GetSubscription: MethodDefinition<_mtx_billing_v1_GetSubscriptionRequest, _mtx_billing_v1_Subscription, _mtx_billing_v1_GetSubscriptionRequest__Output, _mtx_billing_v1_Subscription__Output>
  GetUpcoming: MethodDefinition<_mtx_billing_v1_GetUpcomingRequest, _mtx_billing_v1_Upcoming, _mtx_billing_v1_GetUpcomingRequest__Output, _mtx_billing_v1_Upcoming__Output>
  ListServerPlans: MethodDefinition<_mtx_billing_v1_ListServerPlansRequest, _mtx_billing_v1_ListServerPlansResponse, _mtx_billing_v1_ListServerPlansRequest__Output, _mtx_billing_v1_ListServerPlansResponse__Output>
  ListServers: MethodDefinition<_mtx_billing_v1_ListServersRequest, _mtx_billing_v1_ListServersResponse, _mtx_billing_v1_ListServersRequest__Output, _mtx_billing_v1_ListServersResponse__Output>
  ReleaseSeat: MethodDefinition<_mtx_billing_v1_ReleaseSeatRequest, _mtx_billing_v1_Seat, _mtx_billing_v1_ReleaseSeatRequest__Output, _mtx_billing_v1_Seat__Output>
  RunSchedulerTick: MethodDefinition<_mtx_billing_v1_RunSchedulerTickRequest, _mtx_billing_v1_SchedulerTickReport, _mtx_billing_v1_RunSchedulerTickRequest__Output, _mtx_billing_v1_SchedulerTickReport__Output>
  UpdateSubscription: MethodDefinition<_mtx_billing_v1_UpdateSubscriptionRequest, _mtx_billing_v1_Subscription, _mtx_billing_v1_UpdateSubscriptionRequest__Output, _mtx_billing_v1_Subscription__Output>
}
