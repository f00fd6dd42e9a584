// Original file: proto/brokersim/v1/brokersim.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AccountInfoResponse as _mtx_brokersim_v1_AccountInfoResponse, AccountInfoResponse__Output as _mtx_brokersim_v1_AccountInfoResponse__Output } from '../../../mtx/brokersim/v1/AccountInfoResponse';
import type { GetServerInfoRequest as _mtx_brokersim_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _mtx_brokersim_v1_GetServerInfoRequest__Output } from '../../../mtx/brokersim/v1/GetServerInfoRequest';
import type { GetSymbolRequest as _mtx_brokersim_v1_GetSymbolRequest, GetSymbolRequest__Output as _mtx_brokersim_v1_GetSymbolRequest__Output } from '../../../mtx/brokersim/v1/GetSymbolRequest';
import type { GetTicketRequest as _mtx_brokersim_v1_GetTicketRequest, GetTicketRequest__Output as _mtx_brokersim_v1_GetTicketRequest__Output } from '../../../mtx/brokersim/v1/GetTicketRequest';
import type { GetTicketResponse as _mtx_brokersim_v1_GetTicketResponse, GetTicketResponse__Output as _mtx_brokersim_v1_GetTicketResponse__Output } from '../../../mtx/brokersim/v1/GetTicketResponse';
import type { ListServersRequest as _mtx_brokersim_v1_ListServersRequest, ListServersRequest__Output as _mtx_brokersim_v1_ListServersRequest__Output } from '../../../mtx/brokersim/v1/ListServersRequest';
import type { ListServersResponse as _mtx_brokersim_v1_ListServersResponse, ListServersResponse__Output as _mtx_brokersim_v1_ListServersResponse__Output } from '../../../mtx/brokersim/v1/ListServersResponse';
import type { LoginRequest as _mtx_brokersim_v1_LoginRequest, LoginRequest__Output as _mtx_brokersim_v1_LoginRequest__Output } from '../../../mtx/brokersim/v1/LoginRequest';
import type { LoginResponse as _mtx_brokersim_v1_LoginResponse, LoginResponse__Output as _mtx_brokersim_v1_LoginResponse__Output } from '../../../mtx/brokersim/v1/LoginResponse';
import type { LogoutResponse as _mtx_brokersim_v1_LogoutResponse, LogoutResponse__Output as _mtx_brokersim_v1_LogoutResponse__Output } from '../../../mtx/brokersim/v1/LogoutResponse';
import type { LookupRequestsRequest as _mtx_brokersim_v1_LookupRequestsRequest, LookupRequestsRequest__Output as _mtx_brokersim_v1_LookupRequestsRequest__Output } from '../../../mtx/brokersim/v1/LookupRequestsRequest';
import type { LookupRequestsResponse as _mtx_brokersim_v1_LookupRequestsResponse, LookupRequestsResponse__Output as _mtx_brokersim_v1_LookupRequestsResponse__Output } from '../../../mtx/brokersim/v1/LookupRequestsResponse';
import type { Mt4OrderCloseRequest as _mtx_brokersim_v1_Mt4OrderCloseRequest, Mt4OrderCloseRequest__Output as _mtx_brokersim_v1_Mt4OrderCloseRequest__Output } from '../../../mtx/brokersim/v1/Mt4OrderCloseRequest';
import type { Mt4OrderDeleteRequest as _mtx_brokersim_v1_Mt4OrderDeleteRequest, Mt4OrderDeleteRequest__Output as _mtx_brokersim_v1_Mt4OrderDeleteRequest__Output } from '../../../mtx/brokersim/v1/Mt4OrderDeleteRequest';
import type { Mt4OrderSendRequest as _mtx_brokersim_v1_Mt4OrderSendRequest, Mt4OrderSendRequest__Output as _mtx_brokersim_v1_Mt4OrderSendRequest__Output } from '../../../mtx/brokersim/v1/Mt4OrderSendRequest';
import type { Mt4OrdersResponse as _mtx_brokersim_v1_Mt4OrdersResponse, Mt4OrdersResponse__Output as _mtx_brokersim_v1_Mt4OrdersResponse__Output } from '../../../mtx/brokersim/v1/Mt4OrdersResponse';
import type { Mt4Result as _mtx_brokersim_v1_Mt4Result, Mt4Result__Output as _mtx_brokersim_v1_Mt4Result__Output } from '../../../mtx/brokersim/v1/Mt4Result';
import type { Mt5OrdersResponse as _mtx_brokersim_v1_Mt5OrdersResponse, Mt5OrdersResponse__Output as _mtx_brokersim_v1_Mt5OrdersResponse__Output } from '../../../mtx/brokersim/v1/Mt5OrdersResponse';
import type { Mt5PositionsResponse as _mtx_brokersim_v1_Mt5PositionsResponse, Mt5PositionsResponse__Output as _mtx_brokersim_v1_Mt5PositionsResponse__Output } from '../../../mtx/brokersim/v1/Mt5PositionsResponse';
import type { Mt5TradeRequest as _mtx_brokersim_v1_Mt5TradeRequest, Mt5TradeRequest__Output as _mtx_brokersim_v1_Mt5TradeRequest__Output } from '../../../mtx/brokersim/v1/Mt5TradeRequest';
import type { Mt5TradeResult as _mtx_brokersim_v1_Mt5TradeResult, Mt5TradeResult__Output as _mtx_brokersim_v1_Mt5TradeResult__Output } from '../../../mtx/brokersim/v1/Mt5TradeResult';
import type { PingResponse as _mtx_brokersim_v1_PingResponse, PingResponse__Output as _mtx_brokersim_v1_PingResponse__Output } from '../../../mtx/brokersim/v1/PingResponse';
import type { ServerInfo as _mtx_brokersim_v1_ServerInfo, ServerInfo__Output as _mtx_brokersim_v1_ServerInfo__Output } from '../../../mtx/brokersim/v1/ServerInfo';
import type { SessionRequest as _mtx_brokersim_v1_SessionRequest, SessionRequest__Output as _mtx_brokersim_v1_SessionRequest__Output } from '../../../mtx/brokersim/v1/SessionRequest';
import type { SymbolInfo as _mtx_brokersim_v1_SymbolInfo, SymbolInfo__Output as _mtx_brokersim_v1_SymbolInfo__Output } from '../../../mtx/brokersim/v1/SymbolInfo';
import type { TerminalAnswers as _mtx_brokersim_v1_TerminalAnswers, TerminalAnswers__Output as _mtx_brokersim_v1_TerminalAnswers__Output } from '../../../mtx/brokersim/v1/TerminalAnswers';
import type { TerminalCalls as _mtx_brokersim_v1_TerminalCalls, TerminalCalls__Output as _mtx_brokersim_v1_TerminalCalls__Output } from '../../../mtx/brokersim/v1/TerminalCalls';

export interface BrokerSimServiceClient extends grpc.Client {
  AccountInfo(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  AccountInfo(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  AccountInfo(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  AccountInfo(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  accountInfo(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  accountInfo(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  accountInfo(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  accountInfo(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_AccountInfoResponse__Output>): grpc.ClientUnaryCall;
  
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _mtx_brokersim_v1_GetServerInfoRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  
  GetSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  GetSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  GetSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  GetSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  getSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  getSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  getSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  getSymbol(argument: _mtx_brokersim_v1_GetSymbolRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_SymbolInfo__Output>): grpc.ClientUnaryCall;
  
  GetTicket(argument: _mtx_brokersim_v1_GetTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _mtx_brokersim_v1_GetTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _mtx_brokersim_v1_GetTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _mtx_brokersim_v1_GetTicketRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _mtx_brokersim_v1_GetTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _mtx_brokersim_v1_GetTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _mtx_brokersim_v1_GetTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _mtx_brokersim_v1_GetTicketRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  ListServers(argument: _mtx_brokersim_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  listServers(argument: _mtx_brokersim_v1_ListServersRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_ListServersResponse__Output>): grpc.ClientUnaryCall;
  
  Login(argument: _mtx_brokersim_v1_LoginRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  Login(argument: _mtx_brokersim_v1_LoginRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  Login(argument: _mtx_brokersim_v1_LoginRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  Login(argument: _mtx_brokersim_v1_LoginRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  login(argument: _mtx_brokersim_v1_LoginRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  login(argument: _mtx_brokersim_v1_LoginRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  login(argument: _mtx_brokersim_v1_LoginRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  login(argument: _mtx_brokersim_v1_LoginRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_LoginResponse__Output>): grpc.ClientUnaryCall;
  
  Logout(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  Logout(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  Logout(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  Logout(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  logout(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  logout(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  logout(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  logout(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_LogoutResponse__Output>): grpc.ClientUnaryCall;
  
  LookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  LookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  LookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  LookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  lookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  lookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  lookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  lookupRequests(argument: _mtx_brokersim_v1_LookupRequestsRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_LookupRequestsResponse__Output>): grpc.ClientUnaryCall;
  
  Mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderClose(argument: _mtx_brokersim_v1_Mt4OrderCloseRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  
  Mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderDelete(argument: _mtx_brokersim_v1_Mt4OrderDeleteRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  
  Mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  Mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  mt4OrderSend(argument: _mtx_brokersim_v1_Mt4OrderSendRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4Result__Output>): grpc.ClientUnaryCall;
  
  Mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  Mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  Mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  Mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt4Orders(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt4OrdersResponse__Output>): grpc.ClientUnaryCall;
  
  Mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  Mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  Mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  Mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  mt5OrderSend(argument: _mtx_brokersim_v1_Mt5TradeRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5TradeResult__Output>): grpc.ClientUnaryCall;
  
  Mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  Mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  Mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  Mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  mt5Orders(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5OrdersResponse__Output>): grpc.ClientUnaryCall;
  
  Mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  Mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  Mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  Mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  mt5Positions(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_Mt5PositionsResponse__Output>): grpc.ClientUnaryCall;
  
  Ping(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _mtx_brokersim_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _mtx_brokersim_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _mtx_brokersim_v1_SessionRequest, callback: grpc.requestCallback<_mtx_brokersim_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  
  Terminal(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_mtx_brokersim_v1_TerminalCalls, _mtx_brokersim_v1_TerminalAnswers__Output>;
  Terminal(options?: grpc.CallOptions): grpc.ClientDuplexStream<_mtx_brokersim_v1_TerminalCalls, _mtx_brokersim_v1_TerminalAnswers__Output>;
  terminal(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_mtx_brokersim_v1_TerminalCalls, _mtx_brokersim_v1_TerminalAnswers__Output>;
  terminal(options?: grpc.CallOptions): grpc.ClientDuplexStream<_mtx_brokersim_v1_TerminalCalls, _mtx_brokersim_v1_TerminalAnswers__Output>;
  
}

export interface BrokerSimServiceHandlers extends grpc.UntypedServiceImplementation {
  AccountInfo: grpc.handleUnaryCall<_mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_AccountInfoResponse>;
  
  GetServerInfo: grpc.handleUnaryCall<_mtx_brokersim_v1_GetServerInfoRequest__Output, _mtx_brokersim_v1_ServerInfo>;
  
  GetSymbol: grpc.handleUnaryCall<_mtx_brokersim_v1_GetSymbolRequest__Output, _mtx_brokersim_v1_SymbolInfo>;
  
  GetTicket: grpc.handleUnaryCall<_mtx_brokersim_v1_GetTicketRequest__Output, _mtx_brokersim_v1_GetTicketResponse>;
  
  ListServers: grpc.handleUnaryCall<_mtx_brokersim_v1_ListServersRequest__Output, _mtx_brokersim_v1_ListServersResponse>;
  
  Login: grpc.handleUnaryCall<_mtx_brokersim_v1_LoginRequest__Output, _mtx_brokersim_v1_LoginResponse>;
  
  Logout: grpc.handleUnaryCall<_mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_LogoutResponse>;
  
  LookupRequests: grpc.handleUnaryCall<_mtx_brokersim_v1_LookupRequestsRequest__Output, _mtx_brokersim_v1_LookupRequestsResponse>;
  
  Mt4OrderClose: grpc.handleUnaryCall<_mtx_brokersim_v1_Mt4OrderCloseRequest__Output, _mtx_brokersim_v1_Mt4Result>;
  
  Mt4OrderDelete: grpc.handleUnaryCall<_mtx_brokersim_v1_Mt4OrderDeleteRequest__Output, _mtx_brokersim_v1_Mt4Result>;
  
  Mt4OrderSend: grpc.handleUnaryCall<_mtx_brokersim_v1_Mt4OrderSendRequest__Output, _mtx_brokersim_v1_Mt4Result>;
  
  Mt4Orders: grpc.handleUnaryCall<_mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_Mt4OrdersResponse>;
  
  Mt5OrderSend: grpc.handleUnaryCall<_mtx_brokersim_v1_Mt5TradeRequest__Output, _mtx_brokersim_v1_Mt5TradeResult>;
  
  Mt5Orders: grpc.handleUnaryCall<_mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_Mt5OrdersResponse>;
  
  Mt5Positions: grpc.handleUnaryCall<_mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_Mt5PositionsResponse>;
  
  Ping: grpc.handleUnaryCall<_mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_PingResponse>;
  
  Terminal: grpc.handleBidiStreamingCall<_mtx_brokersim_v1_TerminalCalls__Output, _mtx_brokersim_v1_TerminalAnswers>;
  
}

export interface BrokerSimServiceDefinition extends grpc.ServiceDefinition {
  AccountInfo: MethodDefinition<_mtx_brokersim_v1_SessionRequest, _mtx_brokersim_v1_AccountInfoResponse, _mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_AccountInfoResponse__Output>
  GetServerInfo: MethodDefinition<_mtx_brokersim_v1_GetServerInfoRequest, _mtx_brokersim_v1_ServerInfo, _mtx_brokersim_v1_GetServerInfoRequest__Output, _mtx_brokersim_v1_ServerInfo__Output>
  GetSymbol: MethodDefinition<_mtx_brokersim_v1_GetSymbolRequest, _mtx_brokersim_v1_SymbolInfo, _mtx_brokersim_v1_GetSymbolRequest__Output, _mtx_brokersim_v1_SymbolInfo__Output>
  GetTicket: MethodDefinition<_mtx_brokersim_v1_GetTicketRequest, _mtx_brokersim_v1_GetTicketResponse, _mtx_brokersim_v1_GetTicketRequest__Output, _mtx_brokersim_v1_GetTicketResponse__Output>
  ListServers: MethodDefinition<_mtx_brokersim_v1_ListServersRequest, _mtx_brokersim_v1_ListServersResponse, _mtx_brokersim_v1_ListServersRequest__Output, _mtx_brokersim_v1_ListServersResponse__Output>
  Login: MethodDefinition<_mtx_brokersim_v1_LoginRequest, _mtx_brokersim_v1_LoginResponse, _mtx_brokersim_v1_LoginRequest__Output, _mtx_brokersim_v1_LoginResponse__Output>
  Logout: MethodDefinition<_mtx_brokersim_v1_SessionRequest, _mtx_brokersim_v1_LogoutResponse, _mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_LogoutResponse__Output>
  LookupRequests: MethodDefinition<_mtx_brokersim_v1_LookupRequestsRequest, _mtx_brokersim_v1_LookupRequestsResponse, _mtx_brokersim_v1_LookupRequestsRequest__Output, _mtx_brokersim_v1_LookupRequestsResponse__Output>
  Mt4OrderClose: MethodDefinition<_mtx_brokersim_v1_Mt4OrderCloseRequest, _mtx_brokersim_v1_Mt4Result, _mtx_brokersim_v1_Mt4OrderCloseRequest__Output, _mtx_brokersim_v1_Mt4Result__Output>
  Mt4OrderDelete: MethodDefinition<_mtx_brokersim_v1_Mt4OrderDeleteRequest, _mtx_brokersim_v1_Mt4Result, _mtx_brokersim_v1_Mt4OrderDeleteRequest__Output, _mtx_brokersim_v1_Mt4Result__Output>
  Mt4OrderSend: MethodDefinition<_mtx_brokersim_v1_Mt4OrderSendRequest, _mtx_brokersim_v1_Mt4Result, _mtx_brokersim_v1_Mt4OrderSendRequest__Output, _mtx_brokersim_v1_Mt4Result__Output>
  Mt4Orders: MethodDefinition<_mtx_brokersim_v1_SessionRequest, _mtx_brokersim_v1_Mt4OrdersResponse, _mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_Mt4OrdersResponse__Output>
  Mt5OrderSend: MethodDefinition<_mtx_brokersim_v1_Mt5TradeRequest, _mtx_brokersim_v1_Mt5TradeResult, _mtx_brokersim_v1_Mt5TradeRequest__Output, _mtx_brokersim_v1_Mt5TradeResult__Output>
  Mt5Orders: MethodDefinition<_mtx_brokersim_v1_SessionRequest, _mtx_brokersim_v1_Mt5OrdersResponse, _mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_Mt5OrdersResponse__Output>
  Mt5Positions: MethodDefinition<_mtx_brokersim_v1_SessionRequest, _mtx_brokersim_v1_Mt5PositionsResponse, _mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_Mt5PositionsResponse__Output>
  Ping: MethodDefinition<_mtx_brokersim_v1_SessionRequest, _mtx_brokersim_v1_PingResponse, _mtx_brokersim_v1_SessionRequest__Output, _mtx_brokersim_v1_PingResponse__Output>
  Terminal: MethodDefinition<_mtx_brokersim_v1_TerminalCalls, _mtx_brokersim_v1_TerminalAnswers, _mtx_brokersim_v1_TerminalCalls__Output, _mtx_brokersim_v1_TerminalAnswers__Output>
}
