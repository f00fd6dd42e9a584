// Original file: proto/execution/v1/execution.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { Account as _mtx_execution_v1_Account, Account__Output as _mtx_execution_v1_Account__Output } from '../../../mtx/execution/v1/Account';
import type { AccountSettings as _mtx_execution_v1_AccountSettings, AccountSettings__Output as _mtx_execution_v1_AccountSettings__Output } from '../../../mtx/execution/v1/AccountSettings';
import type { AccountState as _mtx_execution_v1_AccountState, AccountState__Output as _mtx_execution_v1_AccountState__Output } from '../../../mtx/execution/v1/AccountState';
import type { Batch as _mtx_execution_v1_Batch, Batch__Output as _mtx_execution_v1_Batch__Output } from '../../../mtx/execution/v1/Batch';
import type { CloseOrdersRequest as _mtx_execution_v1_CloseOrdersRequest, CloseOrdersRequest__Output as _mtx_execution_v1_CloseOrdersRequest__Output } from '../../../mtx/execution/v1/CloseOrdersRequest';
import type { CloseOrdersResponse as _mtx_execution_v1_CloseOrdersResponse, CloseOrdersResponse__Output as _mtx_execution_v1_CloseOrdersResponse__Output } from '../../../mtx/execution/v1/CloseOrdersResponse';
import type { CreateAccountRequest as _mtx_execution_v1_CreateAccountRequest, CreateAccountRequest__Output as _mtx_execution_v1_CreateAccountRequest__Output } from '../../../mtx/execution/v1/CreateAccountRequest';
import type { DeleteAccountRequest as _mtx_execution_v1_DeleteAccountRequest, DeleteAccountRequest__Output as _mtx_execution_v1_DeleteAccountRequest__Output } from '../../../mtx/execution/v1/DeleteAccountRequest';
import type { GetAccountRequest as _mtx_execution_v1_GetAccountRequest, GetAccountRequest__Output as _mtx_execution_v1_GetAccountRequest__Output } from '../../../mtx/execution/v1/GetAccountRequest';
import type { GetAccountStateRequest as _mtx_execution_v1_GetAccountStateRequest, GetAccountStateRequest__Output as _mtx_execution_v1_GetAccountStateRequest__Output } from '../../../mtx/execution/v1/GetAccountStateRequest';
import type { GetBatchRequest as _mtx_execution_v1_GetBatchRequest, GetBatchRequest__Output as _mtx_execution_v1_GetBatchRequest__Output } from '../../../mtx/execution/v1/GetBatchRequest';
import type { ListAccountsRequest as _mtx_execution_v1_ListAccountsRequest, ListAccountsRequest__Output as _mtx_execution_v1_ListAccountsRequest__Output } from '../../../mtx/execution/v1/ListAccountsRequest';
import type { ListAccountsResponse as _mtx_execution_v1_ListAccountsResponse, ListAccountsResponse__Output as _mtx_execution_v1_ListAccountsResponse__Output } from '../../../mtx/execution/v1/ListAccountsResponse';
import type { ListBatchesRequest as _mtx_execution_v1_ListBatchesRequest, ListBatchesRequest__Output as _mtx_execution_v1_ListBatchesRequest__Output } from '../../../mtx/execution/v1/ListBatchesRequest';
import type { ListBatchesResponse as _mtx_execution_v1_ListBatchesResponse, ListBatchesResponse__Output as _mtx_execution_v1_ListBatchesResponse__Output } from '../../../mtx/execution/v1/ListBatchesResponse';
import type { ListHistoryRequest as _mtx_execution_v1_ListHistoryRequest, ListHistoryRequest__Output as _mtx_execution_v1_ListHistoryRequest__Output } from '../../../mtx/execution/v1/ListHistoryRequest';
import type { ListHistoryResponse as _mtx_execution_v1_ListHistoryResponse, ListHistoryResponse__Output as _mtx_execution_v1_ListHistoryResponse__Output } from '../../../mtx/execution/v1/ListHistoryResponse';
import type { ListPositionsRequest as _mtx_execution_v1_ListPositionsRequest, ListPositionsRequest__Output as _mtx_execution_v1_ListPositionsRequest__Output } from '../../../mtx/execution/v1/ListPositionsRequest';
import type { ListPositionsResponse as _mtx_execution_v1_ListPositionsResponse, ListPositionsResponse__Output as _mtx_execution_v1_ListPositionsResponse__Output } from '../../../mtx/execution/v1/ListPositionsResponse';
import type { ListServersRequest as _mtx_execution_v1_ListServersRequest, ListServersRequest__Output as _mtx_execution_v1_ListServersRequest__Output } from '../../../mtx/execution/v1/ListServersRequest';
import type { ListServersResponse as _mtx_execution_v1_ListServersResponse, ListServersResponse__Output as _mtx_execution_v1_ListServersResponse__Output } from '../../../mtx/execution/v1/ListServersResponse';
import type { ModifyOrdersRequest as _mtx_execution_v1_ModifyOrdersRequest, ModifyOrdersRequest__Output as _mtx_execution_v1_ModifyOrdersRequest__Output } from '../../../mtx/execution/v1/ModifyOrdersRequest';
import type { ModifyOrdersResponse as _mtx_execution_v1_ModifyOrdersResponse, ModifyOrdersResponse__Output as _mtx_execution_v1_ModifyOrdersResponse__Output } from '../../../mtx/execution/v1/ModifyOrdersResponse';
import type { PlaceOrdersRequest as _mtx_execution_v1_PlaceOrdersRequest, PlaceOrdersRequest__Output as _mtx_execution_v1_PlaceOrdersRequest__Output } from '../../../mtx/execution/v1/PlaceOrdersRequest';
import type { PlaceOrdersResponse as _mtx_execution_v1_PlaceOrdersResponse, PlaceOrdersResponse__Output as _mtx_execution_v1_PlaceOrdersResponse__Output } from '../../../mtx/execution/v1/PlaceOrdersResponse';
import type { ReconcileRequest as _mtx_execution_v1_ReconcileRequest, ReconcileRequest__Output as _mtx_execution_v1_ReconcileRequest__Output } from '../../../mtx/execution/v1/ReconcileRequest';
import type { ReconcileResponse as _mtx_execution_v1_ReconcileResponse, ReconcileResponse__Output as _mtx_execution_v1_ReconcileResponse__Output } from '../../../mtx/execution/v1/ReconcileResponse';
import type { SetAccountBillingStatusRequest as _mtx_execution_v1_SetAccountBillingStatusRequest, SetAccountBillingStatusRequest__Output as _mtx_execution_v1_SetAccountBillingStatusRequest__Output } from '../../../mtx/execution/v1/SetAccountBillingStatusRequest';
import type { UpdateAccountSettingsRequest as _mtx_execution_v1_UpdateAccountSettingsRequest, UpdateAccountSettingsRequest__Output as _mtx_execution_v1_UpdateAccountSettingsRequest__Output } from '../../../mtx/execution/v1/UpdateAccountSettingsRequest';

export interface ExecutionServiceClient extends grpc.Client {
  CloseOrders(argument: _mtx_execution_v1_CloseOrdersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  CloseOrders(argument: _mtx_execution_v1_CloseOrdersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  CloseOrders(argument: _mtx_execution_v1_CloseOrdersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  CloseOrders(argument: _mtx_execution_v1_CloseOrdersRequest, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  closeOrders(argument: _mtx_execution_v1_CloseOrdersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  closeOrders(argument: _mtx_execution_v1_CloseOrdersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  closeOrders(argument: _mtx_execution_v1_CloseOrdersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  closeOrders(argument: _mtx_execution_v1_CloseOrdersRequest, callback: grpc.requestCallback<_mtx_execution_v1_CloseOrdersResponse__Output>): grpc.ClientUnaryCall;
  
  CreateAccount(argument: _mtx_execution_v1_CreateAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  CreateAccount(argument: _mtx_execution_v1_CreateAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  CreateAccount(argument: _mtx_execution_v1_CreateAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  CreateAccount(argument: _mtx_execution_v1_CreateAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  createAccount(argument: _mtx_execution_v1_CreateAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  createAccount(argument: _mtx_execution_v1_CreateAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  createAccount(argument: _mtx_execution_v1_CreateAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  createAccount(argument: _mtx_execution_v1_CreateAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  
  DeleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  DeleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  DeleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  DeleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  deleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  deleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  deleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  deleteAccount(argument: _mtx_execution_v1_DeleteAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  
  GetAccount(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  GetAccount(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  GetAccount(argument: _mtx_execution_v1_GetAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  GetAccount(argument: _mtx_execution_v1_GetAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  getAccount(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  getAccount(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  getAccount(argument: _mtx_execution_v1_GetAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  getAccount(argument: _mtx_execution_v1_GetAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  
  GetAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  GetAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  GetAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  GetAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  getAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  getAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  getAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  getAccountSettings(argument: _mtx_execution_v1_GetAccountRequest, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  
  GetAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  GetAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  GetAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  GetAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  getAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  getAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  getAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  getAccountState(argument: _mtx_execution_v1_GetAccountStateRequest, callback: grpc.requestCallback<_mtx_execution_v1_AccountState__Output>): grpc.ClientUnaryCall;
  
  GetBatch(argument: _mtx_execution_v1_GetBatchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  GetBatch(argument: _mtx_execution_v1_GetBatchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  GetBatch(argument: _mtx_execution_v1_GetBatchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  GetBatch(argument: _mtx_execution_v1_GetBatchRequest, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  getBatch(argument: _mtx_execution_v1_GetBatchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  getBatch(argument: _mtx_execution_v1_GetBatchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  getBatch(argument: _mtx_execution_v1_GetBatchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  getBatch(argument: _mtx_execution_v1_GetBatchRequest, callback: grpc.requestCallback<_mtx_execution_v1_Batch__Output>): grpc.ClientUnaryCall;
  
  ListAccounts(argument: _mtx_execution_v1_ListAccountsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  ListAccounts(argument: _mtx_execution_v1_ListAccountsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  ListAccounts(argument: _mtx_execution_v1_ListAccountsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  ListAccounts(argument: _mtx_execution_v1_ListAccountsRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _mtx_execution_v1_ListAccountsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _mtx_execution_v1_ListAccountsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _mtx_execution_v1_ListAccountsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _mtx_execution_v1_ListAccountsRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  
  ListBatches(argument: _mtx_execution_v1_ListBatchesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  ListBatches(argument: _mtx_execution_v1_ListBatchesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  ListBatches(argument: _mtx_execution_v1_ListBatchesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  ListBatches(argument: _mtx_execution_v1_ListBatchesRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  listBatches(argument: _mtx_execution_v1_ListBatchesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  listBatches(argument: _mtx_execution_v1_ListBatchesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  listBatches(argument: _mtx_execution_v1_ListBatchesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  listBatches(argument: _mtx_execution_v1_ListBatchesRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListBatchesResponse__Output>): grpc.ClientUnaryCall;
  
  ListHistory(argument: _mtx_execution_v1_ListHistoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  ListHistory(argument: _mtx_execution_v1_ListHistoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  ListHistory(argument: _mtx_execution_v1_ListHistoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  ListHistory(argument: _mtx_execution_v1_ListHistoryRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  listHistory(argument: _mtx_execution_v1_ListHistoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  listHistory(argument: _mtx_execution_v1_ListHistoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  listHistory(argument: _mtx_execution_v1_ListHistoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  listHistory(argument: _mtx_execution_v1_ListHistoryRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListHistoryResponse__Output>): grpc.ClientUnaryCall;
  
  ListPositions(argument: _mtx_execution_v1_ListPositionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  ListPositions(argument: _mtx_execution_v1_ListPositionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  ListPositions(argument: _mtx_execution_v1_ListPositionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  ListPositions(argument: _mtx_execution_v1_ListPositionsRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  listPositions(argument: _mtx_execution_v1_ListPositionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  listPositions(argument: _mtx_execution_v1_ListPositionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  listPositions(argument: _mtx_execution_v1_ListPositionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  listPositions(argument: _mtx_execution_v1_ListPositionsRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListPositionsResponse__Output>): grpc.ClientUnaryCall;
  
  ListServers(argument: _mtx_execution_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_execution_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_execution_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_execution_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_execution_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_execution_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_execution_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_execution_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_execution_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  
  ModifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  ModifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  ModifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  ModifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  modifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  modifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  modifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  modifyOrders(argument: _mtx_execution_v1_ModifyOrdersRequest, callback: grpc.requestCallback<_mtx_execution_v1_ModifyOrdersResponse__Output>): grpc.ClientUnaryCall;
  
  PlaceOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  PlaceOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  PlaceOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  PlaceOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  placeOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  placeOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  placeOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  placeOrders(argument: _mtx_execution_v1_PlaceOrdersRequest, callback: grpc.requestCallback<_mtx_execution_v1_PlaceOrdersResponse__Output>): grpc.ClientUnaryCall;
  
  Reconcile(argument: _mtx_execution_v1_ReconcileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  Reconcile(argument: _mtx_execution_v1_ReconcileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  Reconcile(argument: _mtx_execution_v1_ReconcileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  Reconcile(argument: _mtx_execution_v1_ReconcileRequest, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  reconcile(argument: _mtx_execution_v1_ReconcileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  reconcile(argument: _mtx_execution_v1_ReconcileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  reconcile(argument: _mtx_execution_v1_ReconcileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  reconcile(argument: _mtx_execution_v1_ReconcileRequest, callback: grpc.requestCallback<_mtx_execution_v1_ReconcileResponse__Output>): grpc.ClientUnaryCall;
  
  SetAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  SetAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  SetAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  SetAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  setAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  setAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  setAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  setAccountBillingStatus(argument: _mtx_execution_v1_SetAccountBillingStatusRequest, callback: grpc.requestCallback<_mtx_execution_v1_Account__Output>): grpc.ClientUnaryCall;
  
  UpdateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  UpdateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  UpdateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  UpdateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  updateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  updateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  updateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  updateAccountSettings(argument: _mtx_execution_v1_UpdateAccountSettingsRequest, callback: grpc.requestCallback<_mtx_execution_v1_AccountSettings__Output>): grpc.ClientUnaryCall;
  
}

export interface ExecutionServiceHandlers extends grpc.UntypedServiceImplementation {
  CloseOrders: grpc.handleUnaryCall<_mtx_execution_v1_CloseOrdersRequest__Output, _mtx_execution_v1_CloseOrdersResponse>;
  
  CreateAccount: grpc.handleUnaryCall<_mtx_execution_v1_CreateAccountRequest__Output, _mtx_execution_v1_Account>;
  
  DeleteAccount: grpc.handleUnaryCall<_mtx_execution_v1_DeleteAccountRequest__Output, _mtx_execution_v1_Account>;
  
  GetAccount: grpc.handleUnaryCall<_mtx_execution_v1_GetAccountRequest__Output, _mtx_execution_v1_Account>;
  
  GetAccountSettings: grpc.handleUnaryCall<_mtx_execution_v1_GetAccountRequest__Output, _mtx_execution_v1_AccountSettings>;
  
  GetAccountState: grpc.handleUnaryCall<_mtx_execution_v1_GetAccountStateRequest__Output, _mtx_execution_v1_AccountState>;
  
  GetBatch: grpc.handleUnaryCall<_mtx_execution_v1_GetBatchRequest__Output, _mtx_execution_v1_Batch>;
  
  ListAccounts: grpc.handleUnaryCall<_mtx_execution_v1_ListAccountsRequest__Output, _mtx_execution_v1_ListAccountsResponse>;
  
  ListBatches: grpc.handleUnaryCall<_mtx_execution_v1_ListBatchesRequest__Output, _mtx_execution_v1_ListBatchesResponse>;
  
  ListHistory: grpc.handleUnaryCall<_mtx_execution_v1_ListHistoryRequest__Output, _mtx_execution_v1_ListHistoryResponse>;
  
  ListPositions: grpc.handleUnaryCall<_mtx_execution_v1_ListPositionsRequest__Output, _mtx_execution_v1_ListPositionsResponse>;
  
  ListServers: grpc.handleUnaryCall<_mtx_execution_v1_ListServersRequest__Output, _mtx_execution_v1_ListServersResponse>;
  
  ModifyOrders: grpc.handleUnaryCall<_mtx_execution_v1_ModifyOrdersRequest__Output, _mtx_execution_v1_ModifyOrdersResponse>;
  
  PlaceOrders: grpc.handleUnaryCall<_mtx_execution_v1_PlaceOrdersRequest__Output, _mtx_execution_v1_PlaceOrdersResponse>;
  
  Reconcile: grpc.handleUnaryCall<_mtx_execution_v1_ReconcileRequest__Output, _mtx_execution_v1_ReconcileResponse>;
  
  SetAccountBillingStatus: grpc.handleUnaryCall<_mtx_execution_v1_SetAccountBillingStatusRequest__Output, _mtx_execution_v1_Account>;
  
  UpdateAccountSettings: grpc.handleUnaryCall<_mtx_execution_v1_UpdateAccountSettingsRequest__Output, _mtx_execution_v1_AccountSettings>;
  
}

export interface ExecutionServiceDefinition extends grpc.ServiceDefinition {
  CloseOrders: MethodDefinition<_mtx_execution_v1_CloseOrdersRequest, _mtx_execution_v1_CloseOrdersResponse, _mtx_execution_v1_CloseOrdersRequest__Output, _mtx_execution_v1_CloseOrdersResponse__Output>
  CreateAccount: MethodDefinition<_mtx_execution_v1_CreateAccountRequest, _mtx_execution_v1_Account, _mtx_execution_v1_CreateAccountRequest__Output, _mtx_execution_v1_Account__Output>
  DeleteAccount: MethodDefinition<_mtx_execution_v1_DeleteAccountRequest, _mtx_execution_v1_Account, _mtx_execution_v1_DeleteAccountRequest__Output, _mtx_execution_v1_Account__Output>
  GetAccount: MethodDefinition<_mtx_execution_v1_GetAccountRequest, _mtx_execution_v1_Account, _mtx_execution_v1_GetAccountRequest__Output, _mtx_execution_v1_Account__Output>
  GetAccountSettings: MethodDefinition<_mtx_execution_v1_GetAccountRequest, _mtx_execution_v1_AccountSettings, _mtx_execution_v1_GetAccountRequest__Output, _mtx_execution_v1_AccountSettings__Output>
  GetAccountState: MethodDefinition<_mtx_execution_v1_GetAccountStateRequest, _mtx_execution_v1_AccountState, _mtx_execution_v1_GetAccountStateRequest__Output, _mtx_execution_v1_AccountState__Output>
  GetBatch: MethodDefinition<_mtx_execution_v1_GetBatchRequest, _mtx_execution_v1_Batch, _mtx_execution_v1_GetBatchRequest__Output, _mtx_execution_v1_Batch__Output>
  ListAccounts: MethodDefinition<_mtx_execution_v1_ListAccountsRequest, _mtx_execution_v1_ListAccountsResponse, _mtx_execution_v1_ListAccountsRequest__Output, _mtx_execution_v1_ListAccountsResponse__Output>
  ListBatches: MethodDefinition<_mtx_execution_v1_ListBatchesRequest, _mtx_execution_v1_ListBatchesResponse, _mtx_execution_v1_ListBatchesRequest__Output, _mtx_execution_v1_ListBatchesResponse__Output>
  ListHistory: MethodDefinition<_mtx_execution_v1_ListHistoryRequest, _mtx_execution_v1_ListHistoryResponse, _mtx_execution_v1_ListHistoryRequest__Output, _mtx_execution_v1_ListHistoryResponse__Output>
  ListPositions: MethodDefinition<_mtx_execution_v1_ListPositionsRequest, _mtx_execution_v1_ListPositionsResponse, _mtx_execution_v1_ListPositionsRequest__Output, _mtx_execution_v1_ListPositionsResponse__Output>
  ListServers: MethodDefinition<_mtx_execution_v1_ListServersRequest, _mtx_execution_v1_ListServersResponse, _mtx_execution_v1_ListServersRequest__Output, _mtx_execution_v1_ListServersResponse__Output>
  ModifyOrders: MethodDefinition<_mtx_execution_v1_ModifyOrdersRequest, _mtx_execution_v1_ModifyOrdersResponse, _mtx_execution_v1_ModifyOrdersRequest__Output, _mtx_execution_v1_ModifyOrdersResponse__Output>
  PlaceOrders: MethodDefinition<_mtx_execution_v1_PlaceOrdersRequest, _mtx_execution_v1_PlaceOrdersResponse, _mtx_execution_v1_PlaceOrdersRequest__Output, _mtx_execution_v1_PlaceOrdersResponse__Output>
  Reconcile: MethodDefinition<_mtx_execution_v1_ReconcileRequest, _mtx_execution_v1_ReconcileResponse, _mtx_execution_v1_ReconcileRequest__Output, _mtx_execution_v1_ReconcileResponse__Output>
  SetAccountBillingStatus: MethodDefinition<_mtx_execution_v1_SetAccountBillingStatusRequest, _mtx_execution_v1_Account, _mtx_execution_v1_SetAccountBillingStatusRequest__Output, _mtx_execution_v1_Account__Output>
  UpdateAccountSettings: MethodDefinition<_mtx_execution_v1_UpdateAccountSettingsRequest, _mtx_execution_v1_AccountSettings, _mtx_execution_v1_UpdateAccountSettingsRequest__Output, _mtx_execution_v1_AccountSettings__Output>
}
