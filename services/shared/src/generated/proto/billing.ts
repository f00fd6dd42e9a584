import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AssignSeatRequest as _mtx_billing_v1_AssignSeatRequest, AssignSeatRequest__Output as _mtx_billing_v1_AssignSeatRequest__Output } from './mtx/billing/v1/AssignSeatRequest';
import type { BillingServiceClient as _mtx_billing_v1_BillingServiceClient, BillingServiceDefinition as _mtx_billing_v1_BillingServiceDefinition } from './mtx/billing/v1/BillingService';
import type { CancelServerRequest as _mtx_billing_v1_CancelServerRequest, CancelServerRequest__Output as _mtx_billing_v1_CancelServerRequest__Output } from './mtx/billing/v1/CancelServerRequest';
import type { CreateServerRequest as _mtx_billing_v1_CreateServerRequest, CreateServerRequest__Output as _mtx_billing_v1_CreateServerRequest__Output } from './mtx/billing/v1/CreateServerRequest';
import type { GetSubscriptionRequest as _mtx_billing_v1_GetSubscriptionRequest, GetSubscriptionRequest__Output as _mtx_billing_v1_GetSubscriptionRequest__Output } from './mtx/billing/v1/GetSubscriptionRequest';
import type { GetUpcomingRequest as _mtx_billing_v1_GetUpcomingRequest, GetUpcomingRequest__Output as _mtx_billing_v1_GetUpcomingRequest__Output } from './mtx/billing/v1/GetUpcomingRequest';
import type { ListServerPlansRequest as _mtx_billing_v1_ListServerPlansRequest, ListServerPlansRequest__Output as _mtx_billing_v1_ListServerPlansRequest__Output } from './mtx/billing/v1/ListServerPlansRequest';
import type { ListServerPlansResponse as _mtx_billing_v1_ListServerPlansResponse, ListServerPlansResponse__Output as _mtx_billing_v1_ListServerPlansResponse__Output } from './mtx/billing/v1/ListServerPlansResponse';
import type { ListServersRequest as _mtx_billing_v1_ListServersRequest, ListServersRequest__Output as _mtx_billing_v1_ListServersRequest__Output } from './mtx/billing/v1/ListServersRequest';
import type { ListServersResponse as _mtx_billing_v1_ListServersResponse, ListServersResponse__Output as _mtx_billing_v1_ListServersResponse__Output } from './mtx/billing/v1/ListServersResponse';
import type { ReleaseSeatRequest as _mtx_billing_v1_ReleaseSeatRequest, ReleaseSeatRequest__Output as _mtx_billing_v1_ReleaseSeatRequest__Output } from './mtx/billing/v1/ReleaseSeatRequest';
import type { RunSchedulerTickRequest as _mtx_billing_v1_RunSchedulerTickRequest, RunSchedulerTickRequest__Output as _mtx_billing_v1_RunSchedulerTickRequest__Output } from './mtx/billing/v1/RunSchedulerTickRequest';
import type { SchedulerTickReport as _mtx_billing_v1_SchedulerTickReport, SchedulerTickReport__Output as _mtx_billing_v1_SchedulerTickReport__Output } from './mtx/billing/v1/SchedulerTickReport';
import type { Seat as _mtx_billing_v1_Seat, Seat__Output as _mtx_billing_v1_Seat__Output } from './mtx/billing/v1/Seat';
import type { SeatCounts as _mtx_billing_v1_SeatCounts, SeatCounts__Output as _mtx_billing_v1_SeatCounts__Output } from './mtx/billing/v1/SeatCounts';
import type { Server as _mtx_billing_v1_Server, Server__Output as _mtx_billing_v1_Server__Output } from './mtx/billing/v1/Server';
import type { ServerPlan as _mtx_billing_v1_ServerPlan, ServerPlan__Output as _mtx_billing_v1_ServerPlan__Output } from './mtx/billing/v1/ServerPlan';
import type { Subscription as _mtx_billing_v1_Subscription, Subscription__Output as _mtx_billing_v1_Subscription__Output } from './mtx/billing/v1/Subscription';
import type { Upcoming as _mtx_billing_v1_Upcoming, Upcoming__Output as _mtx_billing_v1_Upcoming__Output } from './mtx/billing/v1/Upcoming';
import type { UpcomingItem as _mtx_billing_v1_UpcomingItem, UpcomingItem__Output as _mtx_billing_v1_UpcomingItem__Output } from './mtx/billing/v1/UpcomingItem';
import type { UpdateSubscriptionRequest as _mtx_billing_v1_UpdateSubscriptionRequest, UpdateSubscriptionRequest__Output as _mtx_billing_v1_UpdateSubscriptionRequest__Output } from './mtx/billing/v1/UpdateSubscriptionRequest';
import type { WalletSummary as _mtx_billing_v1_WalletSummary, WalletSummary__Output as _mtx_billing_v1_WalletSummary__Output } from './mtx/billing/v1/WalletSummary';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    billing: {
      v1: {
        AssignSeatRequest: MessageTypeDefinition<_mtx_billing_v1_AssignSeatRequest, _mtx_billing_v1_AssignSeatRequest__Output>
        BillingService: SubtypeConstructor<typeof grpc.Client, _mtx_billing_v1_BillingServiceClient> & { service: _mtx_billing_v1_BillingServiceDefinition }
        CancelServerRequest: MessageTypeDefinition<_mtx_billing_v1_CancelServerRequest, _mtx_billing_v1_CancelServerRequest__Output>
        CreateServerRequest: MessageTypeDefinition<_mtx_billing_v1_CreateServerRequest, _mtx_billing_v1_CreateServerRequest__Output>
        GetSubscriptionRequest: MessageTypeDefinition<_mtx_billing_v1_GetSubscriptionRequest, _mtx_billing_v1_GetSubscriptionRequest__Output>
        GetUpcomingRequest: MessageTypeDefinition<_mtx_billing_v1_GetUpcomingRequest, _mtx_billing_v1_GetUpcomingRequest__Output>
        ListServerPlansRequest: MessageTypeDefinition<_mtx_billing_v1_ListServerPlansRequest, _mtx_billing_v1_ListServerPlansRequest__Output>
        ListServerPlansResponse: MessageTypeDefinition<_mtx_billing_v1_ListServerPlansResponse, _mtx_billing_v1_ListServerPlansResponse__Output>
        ListServersRequest: MessageTypeDefinition<_mtx_billing_v1_ListServersRequest, _mtx_billing_v1_ListServersRequest__Output>
        ListServersResponse: MessageTypeDefinition<_mtx_billing_v1_ListServersResponse, _mtx_billing_v1_ListServersResponse__Output>
        ReleaseSeatRequest: MessageTypeDefinition<_mtx_billing_v1_ReleaseSeatRequest, _mtx_billing_v1_ReleaseSeatRequest__Output>
        RunSchedulerTickRequest: MessageTypeDefinition<_mtx_billing_v1_RunSchedulerTickRequest, _mtx_billing_v1_RunSchedulerTickRequest__Output>
        SchedulerTickReport: MessageTypeDefinition<_mtx_billing_v1_SchedulerTickReport, _mtx_billing_v1_SchedulerTickReport__Output>
        Seat: MessageTypeDefinition<_mtx_billing_v1_Seat, _mtx_billing_v1_Seat__Output>
        SeatCounts: MessageTypeDefinition<_mtx_billing_v1_SeatCounts, _mtx_billing_v1_SeatCounts__Output>
        Server: MessageTypeDefinition<_mtx_billing_v1_Server, _mtx_billing_v1_Server__Output>
        ServerPlan: MessageTypeDefinition<_mtx_billing_v1_ServerPlan, _mtx_billing_v1_ServerPlan__Output>
        Subscription: MessageTypeDefinition<_mtx_billing_v1_Subscription, _mtx_billing_v1_Subscription__Output>
        Upcoming: MessageTypeDefinition<_mtx_billing_v1_Upcoming, _mtx_billing_v1_Upcoming__Output>
        UpcomingItem: MessageTypeDefinition<_mtx_billing_v1_UpcomingItem, _mtx_billing_v1_UpcomingItem__Output>
        UpdateSubscriptionRequest: MessageTypeDefinition<_mtx_billing_v1_UpdateSubscriptionRequest, _mtx_billing_v1_UpdateSubscriptionRequest__Output>
        WalletSummary: MessageTypeDefinition<_mtx_billing_v1_WalletSummary, _mtx_billing_v1_WalletSummary__Output>
      }
    }
  }
}

