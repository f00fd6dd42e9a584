import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { Account as _mtx_execution_v1_Account, Account__Output as _mtx_execution_v1_Account__Output } from './mtx/execution/v1/Account';
import type { AccountPositions as _mtx_execution_v1_AccountPositions, AccountPositions__Output as _mtx_execution_v1_AccountPositions__Output } from './mtx/execution/v1/AccountPositions';
import type { AccountSettings as _mtx_execution_v1_AccountSettings, AccountSettings__Output as _mtx_execution_v1_AccountSettings__Output } from './mtx/execution/v1/AccountSettings';
import type { AccountState as _mtx_execution_v1_AccountState, AccountState__Output as _mtx_execution_v1_AccountState__Output } from './mtx/execution/v1/AccountState';
import type { Batch as _mtx_execution_v1_Batch, Batch__Output as _mtx_execution_v1_Batch__Output } from './mtx/execution/v1/Batch';
import type { BatchListItem as _mtx_execution_v1_BatchListItem, BatchListItem__Output as _mtx_execution_v1_BatchListItem__Output } from './mtx/execution/v1/BatchListItem';
import type { CloseAccountInput as _mtx_execution_v1_CloseAccountInput, CloseAccountInput__Output as _mtx_execution_v1_CloseAccountInput__Output } from './mtx/execution/v1/CloseAccountInput';
import type { CloseAccountResult as _mtx_execution_v1_CloseAccountResult, CloseAccountResult__Output as _mtx_execution_v1_CloseAccountResult__Output } from './mtx/execution/v1/CloseAccountResult';
import type { CloseFields as _mtx_execution_v1_CloseFields, CloseFields__Output as _mtx_execution_v1_CloseFields__Output } from './mtx/execution/v1/CloseFields';
import type { CloseOrdersRequest as _mtx_execution_v1_CloseOrdersRequest, CloseOrdersRequest__Output as _mtx_execution_v1_CloseOrdersRequest__Output } from './mtx/execution/v1/CloseOrdersRequest';
import type { CloseOrdersResponse as _mtx_execution_v1_CloseOrdersResponse, CloseOrdersResponse__Output as _mtx_execution_v1_CloseOrdersResponse__Output } from './mtx/execution/v1/CloseOrdersResponse';
import type { CloseSummary as _mtx_execution_v1_CloseSummary, CloseSummary__Output as _mtx_execution_v1_CloseSummary__Output } from './mtx/execution/v1/CloseSummary';
import type { CreateAccountRequest as _mtx_execution_v1_CreateAccountRequest, CreateAccountRequest__Output as _mtx_execution_v1_CreateAccountRequest__Output } from './mtx/execution/v1/CreateAccountRequest';
import type { DeleteAccountRequest as _mtx_execution_v1_DeleteAccountRequest, DeleteAccountRequest__Output as _mtx_execution_v1_DeleteAccountRequest__Output } from './mtx/execution/v1/DeleteAccountRequest';
import type { ExecutionServiceClient as _mtx_execution_v1_ExecutionServiceClient, ExecutionServiceDefinition as _mtx_execution_v1_ExecutionServiceDefinition } from './mtx/execution/v1/ExecutionService';
import type { GetAccountRequest as _mtx_execution_v1_GetAccountRequest, GetAccountRequest__Output as _mtx_execution_v1_GetAccountRequest__Output } from './mtx/execution/v1/GetAccountRequest';
import type { GetAccountStateRequest as _mtx_execution_v1_GetAccountStateRequest, GetAccountStateRequest__Output as _mtx_execution_v1_GetAccountStateRequest__Output } from './mtx/execution/v1/GetAccountStateRequest';
import type { GetBatchRequest as _mtx_execution_v1_GetBatchRequest, GetBatchRequest__Output as _mtx_execution_v1_GetBatchRequest__Output } from './mtx/execution/v1/GetBatchRequest';
import type { HistoryAccountStatus as _mtx_execution_v1_HistoryAccountStatus, HistoryAccountStatus__Output as _mtx_execution_v1_HistoryAccountStatus__Output } from './mtx/execution/v1/HistoryAccountStatus';
import type { HistoryDeal as _mtx_execution_v1_HistoryDeal, HistoryDeal__Output as _mtx_execution_v1_HistoryDeal__Output } from './mtx/execution/v1/HistoryDeal';
import type { HistoryOrder as _mtx_execution_v1_HistoryOrder, HistoryOrder__Output as _mtx_execution_v1_HistoryOrder__Output } from './mtx/execution/v1/HistoryOrder';
import type { LegSizing as _mtx_execution_v1_LegSizing, LegSizing__Output as _mtx_execution_v1_LegSizing__Output } from './mtx/execution/v1/LegSizing';
import type { ListAccountsRequest as _mtx_execution_v1_ListAccountsRequest, ListAccountsRequest__Output as _mtx_execution_v1_ListAccountsRequest__Output } from './mtx/execution/v1/ListAccountsRequest';
import type { ListAccountsResponse as _mtx_execution_v1_ListAccountsResponse, ListAccountsResponse__Output as _mtx_execution_v1_ListAccountsResponse__Output } from './mtx/execution/v1/ListAccountsResponse';
import type { ListBatchesRequest as _mtx_execution_v1_ListBatchesRequest, ListBatchesRequest__Output as _mtx_execution_v1_ListBatchesRequest__Output } from './mtx/execution/v1/ListBatchesRequest';
import type { ListBatchesResponse as _mtx_execution_v1_ListBatchesResponse, ListBatchesResponse__Output as _mtx_execution_v1_ListBatchesResponse__Output } from './mtx/execution/v1/ListBatchesResponse';
import type { ListHistoryRequest as _mtx_execution_v1_ListHistoryRequest, ListHistoryRequest__Output as _mtx_execution_v1_ListHistoryRequest__Output } from './mtx/execution/v1/ListHistoryRequest';
import type { ListHistoryResponse as _mtx_execution_v1_ListHistoryResponse, ListHistoryResponse__Output as _mtx_execution_v1_ListHistoryResponse__Output } from './mtx/execution/v1/ListHistoryResponse';
import type { ListPositionsRequest as _mtx_execution_v1_ListPositionsRequest, ListPositionsRequest__Output as _mtx_execution_v1_ListPositionsRequest__Output } from './mtx/execution/v1/ListPositionsRequest';
import type { ListPositionsResponse as _mtx_execution_v1_ListPositionsResponse, ListPositionsResponse__Output as _mtx_execution_v1_ListPositionsResponse__Output } from './mtx/execution/v1/ListPositionsResponse';
import type { ListServersRequest as _mtx_execution_v1_ListServersRequest, ListServersRequest__Output as _mtx_execution_v1_ListServersRequest__Output } from './mtx/execution/v1/ListServersRequest';
import type { ListServersResponse as _mtx_execution_v1_ListServersResponse, ListServersResponse__Output as _mtx_execution_v1_ListServersResponse__Output } from './mtx/execution/v1/ListServersResponse';
import type { ModifyAccountResult as _mtx_execution_v1_ModifyAccountResult, ModifyAccountResult__Output as _mtx_execution_v1_ModifyAccountResult__Output } from './mtx/execution/v1/ModifyAccountResult';
import type { ModifyChangeInput as _mtx_execution_v1_ModifyChangeInput, ModifyChangeInput__Output as _mtx_execution_v1_ModifyChangeInput__Output } from './mtx/execution/v1/ModifyChangeInput';
import type { ModifyOrdersRequest as _mtx_execution_v1_ModifyOrdersRequest, ModifyOrdersRequest__Output as _mtx_execution_v1_ModifyOrdersRequest__Output } from './mtx/execution/v1/ModifyOrdersRequest';
import type { ModifyOrdersResponse as _mtx_execution_v1_ModifyOrdersResponse, ModifyOrdersResponse__Output as _mtx_execution_v1_ModifyOrdersResponse__Output } from './mtx/execution/v1/ModifyOrdersResponse';
import type { ModifySummary as _mtx_execution_v1_ModifySummary, ModifySummary__Output as _mtx_execution_v1_ModifySummary__Output } from './mtx/execution/v1/ModifySummary';
import type { ModifyTicketResult as _mtx_execution_v1_ModifyTicketResult, ModifyTicketResult__Output as _mtx_execution_v1_ModifyTicketResult__Output } from './mtx/execution/v1/ModifyTicketResult';
import type { OrderFields as _mtx_execution_v1_OrderFields, OrderFields__Output as _mtx_execution_v1_OrderFields__Output } from './mtx/execution/v1/OrderFields';
import type { OrderLegInput as _mtx_execution_v1_OrderLegInput, OrderLegInput__Output as _mtx_execution_v1_OrderLegInput__Output } from './mtx/execution/v1/OrderLegInput';
import type { OrderLegResult as _mtx_execution_v1_OrderLegResult, OrderLegResult__Output as _mtx_execution_v1_OrderLegResult__Output } from './mtx/execution/v1/OrderLegResult';
import type { PlaceOrdersRequest as _mtx_execution_v1_PlaceOrdersRequest, PlaceOrdersRequest__Output as _mtx_execution_v1_PlaceOrdersRequest__Output } from './mtx/execution/v1/PlaceOrdersRequest';
import type { PlaceOrdersResponse as _mtx_execution_v1_PlaceOrdersResponse, PlaceOrdersResponse__Output as _mtx_execution_v1_PlaceOrdersResponse__Output } from './mtx/execution/v1/PlaceOrdersResponse';
import type { PlaceSummary as _mtx_execution_v1_PlaceSummary, PlaceSummary__Output as _mtx_execution_v1_PlaceSummary__Output } from './mtx/execution/v1/PlaceSummary';
import type { Position as _mtx_execution_v1_Position, Position__Output as _mtx_execution_v1_Position__Output } from './mtx/execution/v1/Position';
import type { PositionsSummary as _mtx_execution_v1_PositionsSummary, PositionsSummary__Output as _mtx_execution_v1_PositionsSummary__Output } from './mtx/execution/v1/PositionsSummary';
import type { ReconcileRequest as _mtx_execution_v1_ReconcileRequest, ReconcileRequest__Output as _mtx_execution_v1_ReconcileRequest__Output } from './mtx/execution/v1/ReconcileRequest';
import type { ReconcileResponse as _mtx_execution_v1_ReconcileResponse, ReconcileResponse__Output as _mtx_execution_v1_ReconcileResponse__Output } from './mtx/execution/v1/ReconcileResponse';
import type { SetAccountBillingStatusRequest as _mtx_execution_v1_SetAccountBillingStatusRequest, SetAccountBillingStatusRequest__Output as _mtx_execution_v1_SetAccountBillingStatusRequest__Output } from './mtx/execution/v1/SetAccountBillingStatusRequest';
import type { Sizing as _mtx_execution_v1_Sizing, Sizing__Output as _mtx_execution_v1_Sizing__Output } from './mtx/execution/v1/Sizing';
import type { SymbolList as _mtx_execution_v1_SymbolList, SymbolList__Output as _mtx_execution_v1_SymbolList__Output } from './mtx/execution/v1/SymbolList';
import type { SymbolMap as _mtx_execution_v1_SymbolMap, SymbolMap__Output as _mtx_execution_v1_SymbolMap__Output } from './mtx/execution/v1/SymbolMap';
import type { TicketResult as _mtx_execution_v1_TicketResult, TicketResult__Output as _mtx_execution_v1_TicketResult__Output } from './mtx/execution/v1/TicketResult';
import type { TradeServer as _mtx_execution_v1_TradeServer, TradeServer__Output as _mtx_execution_v1_TradeServer__Output } from './mtx/execution/v1/TradeServer';
import type { UpdateAccountSettingsRequest as _mtx_execution_v1_UpdateAccountSettingsRequest, UpdateAccountSettingsRequest__Output as _mtx_execution_v1_UpdateAccountSettingsRequest__Output } from './mtx/execution/v1/UpdateAccountSettingsRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    execution: {
      v1: {
        Account: MessageTypeDefinition<_mtx_execution_v1_Account, _mtx_execution_v1_Account__Output>
        AccountPositions: MessageTypeDefinition<_mtx_execution_v1_AccountPositions, _mtx_execution_v1_AccountPositions__Output>
        AccountSettings: MessageTypeDefinition<_mtx_execution_v1_AccountSettings, _mtx_execution_v1_AccountSettings__Output>
        AccountState: MessageTypeDefinition<_mtx_execution_v1_AccountState, _mtx_execution_v1_AccountState__Output>
        Batch: MessageTypeDefinition<_mtx_execution_v1_Batch, _mtx_execution_v1_Batch__Output>
        BatchListItem: MessageTypeDefinition<_mtx_execution_v1_BatchListItem, _mtx_execution_v1_BatchListItem__Output>
        CloseAccountInput: MessageTypeDefinition<_mtx_execution_v1_CloseAccountInput, _mtx_execution_v1_CloseAccountInput__Output>
        CloseAccountResult: MessageTypeDefinition<_mtx_execution_v1_CloseAccountResult, _mtx_execution_v1_CloseAccountResult__Output>
        CloseFields: MessageTypeDefinition<_mtx_execution_v1_CloseFields, _mtx_execution_v1_CloseFields__Output>
        CloseOrdersRequest: MessageTypeDefinition<_mtx_execution_v1_CloseOrdersRequest, _mtx_execution_v1_CloseOrdersRequest__Output>
        CloseOrdersResponse: MessageTypeDefinition<_mtx_execution_v1_CloseOrdersResponse, _mtx_execution_v1_CloseOrdersResponse__Output>
        CloseSummary: MessageTypeDefinition<_mtx_execution_v1_CloseSummary, _mtx_execution_v1_CloseSummary__Output>
        CreateAccountRequest: MessageTypeDefinition<_mtx_execution_v1_CreateAccountRequest, _mtx_execution_v1_CreateAccountRequest__Output>
        DeleteAccountRequest: MessageTypeDefinition<_mtx_execution_v1_DeleteAccountRequest, _mtx_execution_v1_DeleteAccountRequest__Output>
        ExecutionService: SubtypeConstructor<typeof grpc.Client, _mtx_execution_v1_ExecutionServiceClient> & { service: _mtx_execution_v1_ExecutionServiceDefinition }
        GetAccountRequest: MessageTypeDefinition<_mtx_execution_v1_GetAccountRequest, _mtx_execution_v1_GetAccountRequest__Output>
        GetAccountStateRequest: MessageTypeDefinition<_mtx_execution_v1_GetAccountStateRequest, _mtx_execution_v1_GetAccountStateRequest__Output>
        GetBatchRequest: MessageTypeDefinition<_mtx_execution_v1_GetBatchRequest, _mtx_execution_v1_GetBatchRequest__Output>
        HistoryAccountStatus: MessageTypeDefinition<_mtx_execution_v1_HistoryAccountStatus, _mtx_execution_v1_HistoryAccountStatus__Output>
        HistoryDeal: MessageTypeDefinition<_mtx_execution_v1_HistoryDeal, _mtx_execution_v1_HistoryDeal__Output>
        HistoryOrder: MessageTypeDefinition<_mtx_execution_v1_HistoryOrder, _mtx_execution_v1_HistoryOrder__Output>
        LegSizing: MessageTypeDefinition<_mtx_execution_v1_LegSizing, _mtx_execution_v1_LegSizing__Output>
        ListAccountsRequest: MessageTypeDefinition<_mtx_execution_v1_ListAccountsRequest, _mtx_execution_v1_ListAccountsRequest__Output>
        ListAccountsResponse: MessageTypeDefinition<_mtx_execution_v1_ListAccountsResponse, _mtx_execution_v1_ListAccountsResponse__Output>
        ListBatchesRequest: MessageTypeDefinition<_mtx_execution_v1_ListBatchesRequest, _mtx_execution_v1_ListBatchesRequest__Output>
        ListBatchesResponse: MessageTypeDefinition<_mtx_execution_v1_ListBatchesResponse, _mtx_execution_v1_ListBatchesResponse__Output>
        ListHistoryRequest: MessageTypeDefinition<_mtx_execution_v1_ListHistoryRequest, _mtx_execution_v1_ListHistoryRequest__Output>
        ListHistoryResponse: MessageTypeDefinition<_mtx_execution_v1_ListHistoryResponse, _mtx_execution_v1_ListHistoryResponse__Output>
        ListPositionsRequest: MessageTypeDefinition<_mtx_execution_v1_ListPositionsRequest, _mtx_execution_v1_ListPositionsRequest__Output>
        ListPositionsResponse: MessageTypeDefinition<_mtx_execution_v1_ListPositionsResponse, _mtx_execution_v1_ListPositionsResponse__Output>
        ListServersRequest: MessageTypeDefinition<_mtx_execution_v1_ListServersRequest, _mtx_execution_v1_ListServersRequest__Output>
        ListServersResponse: MessageTypeDefinition<_mtx_execution_v1_ListServersResponse, _mtx_execution_v1_ListServersResponse__Output>
        ModifyAccountResult: MessageTypeDefinition<_mtx_execution_v1_ModifyAccountResult, _mtx_execution_v1_ModifyAccountResult__Output>
        ModifyChangeInput: MessageTypeDefinition<_mtx_execution_v1_ModifyChangeInput, _mtx_execution_v1_ModifyChangeInput__Output>
        ModifyOrdersRequest: MessageTypeDefinition<_mtx_execution_v1_ModifyOrdersRequest, _mtx_execution_v1_ModifyOrdersRequest__Output>
        ModifyOrdersResponse: MessageTypeDefinition<_mtx_execution_v1_ModifyOrdersResponse, _mtx_execution_v1_ModifyOrdersResponse__Output>
        ModifySummary: MessageTypeDefinition<_mtx_execution_v1_ModifySummary, _mtx_execution_v1_ModifySummary__Output>
        ModifyTicketResult: MessageTypeDefinition<_mtx_execution_v1_ModifyTicketResult, _mtx_execution_v1_ModifyTicketResult__Output>
        OrderFields: MessageTypeDefinition<_mtx_execution_v1_OrderFields, _mtx_execution_v1_OrderFields__Output>
        OrderLegInput: MessageTypeDefinition<_mtx_execution_v1_OrderLegInput, _mtx_execution_v1_OrderLegInput__Output>
        OrderLegResult: MessageTypeDefinition<_mtx_execution_v1_OrderLegResult, _mtx_execution_v1_OrderLegResult__Output>
        PlaceOrdersRequest: MessageTypeDefinition<_mtx_execution_v1_PlaceOrdersRequest, _mtx_execution_v1_PlaceOrdersRequest__Output>
        PlaceOrdersResponse: MessageTypeDefinition<_mtx_execution_v1_PlaceOrdersResponse, _mtx_execution_v1_PlaceOrdersResponse__Output>
        PlaceSummary: MessageTypeDefinition<_mtx_execution_v1_PlaceSummary, _mtx_execution_v1_PlaceSummary__Output>
        Position: MessageTypeDefinition<_mtx_execution_v1_Position, _mtx_execution_v1_Position__Output>
        PositionsSummary: MessageTypeDefinition<_mtx_execution_v1_PositionsSummary, _mtx_execution_v1_PositionsSummary__Output>
        ReconcileRequest: MessageTypeDefinition<_mtx_execution_v1_ReconcileRequest, _mtx_execution_v1_ReconcileRequest__Output>
        ReconcileResponse: MessageTypeDefinition<_mtx_execution_v1_ReconcileResponse, _mtx_execution_v1_ReconcileResponse__Output>
        SetAccountBillingStatusRequest: MessageTypeDefinition<_mtx_execution_v1_SetAccountBillingStatusRequest, _mtx_execution_v1_SetAccountBillingStatusRequest__Output>
        Sizing: MessageTypeDefinition<_mtx_execution_v1_Sizing, _mtx_execution_v1_Sizing__Output>
        SymbolList: MessageTypeDefinition<_mtx_execution_v1_SymbolList, _mtx_execution_v1_SymbolList__Output>
        SymbolMap: MessageTypeDefinition<_mtx_execution_v1_SymbolMap, _mtx_execution_v1_SymbolMap__Output>
        TicketResult: MessageTypeDefinition<_mtx_execution_v1_TicketResult, _mtx_execution_v1_TicketResult__Output>
        TradeServer: MessageTypeDefinition<_mtx_execution_v1_TradeServer, _mtx_execution_v1_TradeServer__Output>
        UpdateAccountSettingsRequest: MessageTypeDefinition<_mtx_execution_v1_UpdateAccountSettingsRequest, _mtx_execution_v1_UpdateAccountSettingsRequest__Output>
      }
    }
  }
}

