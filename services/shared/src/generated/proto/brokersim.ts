import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccountInfoResponse as _mtx_brokersim_v1_AccountInfoResponse, AccountInfoResponse__Output as _mtx_brokersim_v1_AccountInfoResponse__Output } from './mtx/brokersim/v1/AccountInfoResponse';
import type { BrokerSimServiceClient as _mtx_brokersim_v1_BrokerSimServiceClient, BrokerSimServiceDefinition as _mtx_brokersim_v1_BrokerSimServiceDefinition } from './mtx/brokersim/v1/BrokerSimService';
import type { GetServerInfoRequest as _mtx_brokersim_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _mtx_brokersim_v1_GetServerInfoRequest__Output } from './mtx/brokersim/v1/GetServerInfoRequest';
import type { GetSymbolRequest as _mtx_brokersim_v1_GetSymbolRequest, GetSymbolRequest__Output as _mtx_brokersim_v1_GetSymbolRequest__Output } from './mtx/brokersim/v1/GetSymbolRequest';
import type { GetTicketRequest as _mtx_brokersim_v1_GetTicketRequest, GetTicketRequest__Output as _mtx_brokersim_v1_GetTicketRequest__Output } from './mtx/brokersim/v1/GetTicketRequest';
import type { GetTicketResponse as _mtx_brokersim_v1_GetTicketResponse, GetTicketResponse__Output as _mtx_brokersim_v1_GetTicketResponse__Output } from './mtx/brokersim/v1/GetTicketResponse';
import type { ListServersRequest as _mtx_brokersim_v1_ListServersRequest, ListServersRequest__Output as _mtx_brokersim_v1_ListServersRequest__Output } from './mtx/brokersim/v1/ListServersRequest';
import type { ListServersResponse as _mtx_brokersim_v1_ListServersResponse, ListServersResponse__Output as _mtx_brokersim_v1_ListServersResponse__Output } from './mtx/brokersim/v1/ListServersResponse';
import type { LoginRequest as _mtx_brokersim_v1_LoginRequest, LoginRequest__Output as _mtx_brokersim_v1_LoginRequest__Output } from './mtx/brokersim/v1/LoginRequest';
import type { LoginResponse as _mtx_brokersim_v1_LoginResponse, LoginResponse__Output as _mtx_brokersim_v1_LoginResponse__Output } from './mtx/brokersim/v1/LoginResponse';
import type { LogoutResponse as _mtx_brokersim_v1_LogoutResponse, LogoutResponse__Output as _mtx_brokersim_v1_LogoutResponse__Output } from './mtx/brokersim/v1/LogoutResponse';
import type { LookupRequestsRequest as _mtx_brokersim_v1_LookupRequestsRequest, LookupRequestsRequest__Output as _mtx_brokersim_v1_LookupRequestsRequest__Output } from './mtx/brokersim/v1/LookupRequestsRequest';
import type { LookupRequestsResponse as _mtx_brokersim_v1_LookupRequestsResponse, LookupRequestsResponse__Output as _mtx_brokersim_v1_LookupRequestsResponse__Output } from './mtx/brokersim/v1/LookupRequestsResponse';
import type { Mt4Order as _mtx_brokersim_v1_Mt4Order, Mt4Order__Output as _mtx_brokersim_v1_Mt4Order__Output } from './mtx/brokersim/v1/Mt4Order';
import type { Mt4OrderCloseRequest as _mtx_brokersim_v1_Mt4OrderCloseRequest, Mt4OrderCloseRequest__Output as _mtx_brokersim_v1_Mt4OrderCloseRequest__Output } from './mtx/brokersim/v1/Mt4OrderCloseRequest';
import type { Mt4OrderDeleteRequest as _mtx_brokersim_v1_Mt4OrderDeleteRequest, Mt4OrderDeleteRequest__Output as _mtx_brokersim_v1_Mt4OrderDeleteRequest__Output } from './mtx/brokersim/v1/Mt4OrderDeleteRequest';
import type { Mt4OrderSendRequest as _mtx_brokersim_v1_Mt4OrderSendRequest, Mt4OrderSendRequest__Output as _mtx_brokersim_v1_Mt4OrderSendRequest__Output } from './mtx/brokersim/v1/Mt4OrderSendRequest';
import type { Mt4OrdersResponse as _mtx_brokersim_v1_Mt4OrdersResponse, Mt4OrdersResponse__Output as _mtx_brokersim_v1_Mt4OrdersResponse__Output } from './mtx/brokersim/v1/Mt4OrdersResponse';
import type { Mt4Result as _mtx_brokersim_v1_Mt4Result, Mt4Result__Output as _mtx_brokersim_v1_Mt4Result__Output } from './mtx/brokersim/v1/Mt4Result';
import type { Mt5Order as _mtx_brokersim_v1_Mt5Order, Mt5Order__Output as _mtx_brokersim_v1_Mt5Order__Output } from './mtx/brokersim/v1/Mt5Order';
import type { Mt5OrdersResponse as _mtx_brokersim_v1_Mt5OrdersResponse, Mt5OrdersResponse__Output as _mtx_brokersim_v1_Mt5OrdersResponse__Output } from './mtx/brokersim/v1/Mt5OrdersResponse';
import type { Mt5Position as _mtx_brokersim_v1_Mt5Position, Mt5Position__Output as _mtx_brokersim_v1_Mt5Position__Output } from './mtx/brokersim/v1/Mt5Position';
import type { Mt5PositionsResponse as _mtx_brokersim_v1_Mt5PositionsResponse, Mt5PositionsResponse__Output as _mtx_brokersim_v1_Mt5PositionsResponse__Output } from './mtx/brokersim/v1/Mt5PositionsResponse';
import type { Mt5TradeRequest as _mtx_brokersim_v1_Mt5TradeRequest, Mt5TradeRequest__Output as _mtx_brokersim_v1_Mt5TradeRequest__Output } from './mtx/brokersim/v1/Mt5TradeRequest';
import type { Mt5TradeResult as _mtx_brokersim_v1_Mt5TradeResult, Mt5TradeResult__Output as _mtx_brokersim_v1_Mt5TradeResult__Output } from './mtx/brokersim/v1/Mt5TradeResult';
import type { PingResponse as _mtx_brokersim_v1_PingResponse, PingResponse__Output as _mtx_brokersim_v1_PingResponse__Output } from './mtx/brokersim/v1/PingResponse';
import type { RequestRecord as _mtx_brokersim_v1_RequestRecord, RequestRecord__Output as _mtx_brokersim_v1_RequestRecord__Output } from './mtx/brokersim/v1/RequestRecord';
import type { ServerInfo as _mtx_brokersim_v1_ServerInfo, ServerInfo__Output as _mtx_brokersim_v1_ServerInfo__Output } from './mtx/brokersim/v1/ServerInfo';
import type { SessionRequest as _mtx_brokersim_v1_SessionRequest, SessionRequest__Output as _mtx_brokersim_v1_SessionRequest__Output } from './mtx/brokersim/v1/SessionRequest';
import type { SymbolInfo as _mtx_brokersim_v1_SymbolInfo, SymbolInfo__Output as _mtx_brokersim_v1_SymbolInfo__Output } from './mtx/brokersim/v1/SymbolInfo';
import type { TerminalAnswer as _mtx_brokersim_v1_TerminalAnswer, TerminalAnswer__Output as _mtx_brokersim_v1_TerminalAnswer__Output } from './mtx/brokersim/v1/TerminalAnswer';
import type { TerminalAnswers as _mtx_brokersim_v1_TerminalAnswers, TerminalAnswers__Output as _mtx_brokersim_v1_TerminalAnswers__Output } from './mtx/brokersim/v1/TerminalAnswers';
import type { TerminalCall as _mtx_brokersim_v1_TerminalCall, TerminalCall__Output as _mtx_brokersim_v1_TerminalCall__Output } from './mtx/brokersim/v1/TerminalCall';
import type { TerminalCalls as _mtx_brokersim_v1_TerminalCalls, TerminalCalls__Output as _mtx_brokersim_v1_TerminalCalls__Output } from './mtx/brokersim/v1/TerminalCalls';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    brokersim: {
      v1: {
        AccountInfoResponse: MessageTypeDefinition<_mtx_brokersim_v1_AccountInfoResponse, _mtx_brokersim_v1_AccountInfoResponse__Output>
        BrokerSimService: SubtypeConstructor<typeof grpc.Client, _mtx_brokersim_v1_BrokerSimServiceClient> & { service: _mtx_brokersim_v1_BrokerSimServiceDefinition }
        GetServerInfoRequest: MessageTypeDefinition<_mtx_brokersim_v1_GetServerInfoRequest, _mtx_brokersim_v1_GetServerInfoRequest__Output>
        GetSymbolRequest: MessageTypeDefinition<_mtx_brokersim_v1_GetSymbolRequest, _mtx_brokersim_v1_GetSymbolRequest__Output>
        GetTicketRequest: MessageTypeDefinition<_mtx_brokersim_v1_GetTicketRequest, _mtx_brokersim_v1_GetTicketRequest__Output>
        GetTicketResponse: MessageTypeDefinition<_mtx_brokersim_v1_GetTicketResponse, _mtx_brokersim_v1_GetTicketResponse__Output>
        ListServersRequest: MessageTypeDefinition<_mtx_brokersim_v1_ListServersRequest, _mtx_brokersim_v1_ListServersRequest__Output>
        ListServersResponse: MessageTypeDefinition<_mtx_brokersim_v1_ListServersResponse, _mtx_brokersim_v1_ListServersResponse__Output>
        LoginRequest: MessageTypeDefinition<_mtx_brokersim_v1_LoginRequest, _mtx_brokersim_v1_LoginRequest__Output>
        LoginResponse: MessageTypeDefinition<_mtx_brokersim_v1_LoginResponse, _mtx_brokersim_v1_LoginResponse__Output>
        LogoutResponse: MessageTypeDefinition<_mtx_brokersim_v1_LogoutResponse, _mtx_brokersim_v1_LogoutResponse__Output>
        LookupRequestsRequest: MessageTypeDefinition<_mtx_brokersim_v1_LookupRequestsRequest, _mtx_brokersim_v1_LookupRequestsRequest__Output>
        LookupRequestsResponse: MessageTypeDefinition<_mtx_brokersim_v1_LookupRequestsResponse, _mtx_brokersim_v1_LookupRequestsResponse__Output>
        Mt4Order: MessageTypeDefinition<_mtx_brokersim_v1_Mt4Order, _mtx_brokersim_v1_Mt4Order__Output>
        Mt4OrderCloseRequest: MessageTypeDefinition<_mtx_brokersim_v1_Mt4OrderCloseRequest, _mtx_brokersim_v1_Mt4OrderCloseRequest__Output>
        Mt4OrderDeleteRequest: MessageTypeDefinition<_mtx_brokersim_v1_Mt4OrderDeleteRequest, _mtx_brokersim_v1_Mt4OrderDeleteRequest__Output>
        Mt4OrderSendRequest: MessageTypeDefinition<_mtx_brokersim_v1_Mt4OrderSendRequest, _mtx_brokersim_v1_Mt4OrderSendRequest__Output>
        Mt4OrdersResponse: MessageTypeDefinition<_mtx_brokersim_v1_Mt4OrdersResponse, _mtx_brokersim_v1_Mt4OrdersResponse__Output>
        Mt4Result: MessageTypeDefinition<_mtx_brokersim_v1_Mt4Result, _mtx_brokersim_v1_Mt4Result__Output>
        Mt5Order: MessageTypeDefinition<_mtx_brokersim_v1_Mt5Order, _mtx_brokersim_v1_Mt5Order__Output>
        Mt5OrdersResponse: MessageTypeDefinition<_mtx_brokersim_v1_Mt5OrdersResponse, _mtx_brokersim_v1_Mt5OrdersResponse__Output>
        Mt5Position: MessageTypeDefinition<_mtx_brokersim_v1_Mt5Position, _mtx_brokersim_v1_Mt5Position__Output>
        Mt5PositionsResponse: MessageTypeDefinition<_mtx_brokersim_v1_Mt5PositionsResponse, _mtx_brokersim_v1_Mt5PositionsResponse__Output>
        Mt5TradeRequest: MessageTypeDefinition<_mtx_brokersim_v1_Mt5TradeRequest, _mtx_brokersim_v1_Mt5TradeRequest__Output>
        Mt5TradeResult: MessageTypeDefinition<_mtx_brokersim_v1_Mt5TradeResult, _mtx_brokersim_v1_Mt5TradeResult__Output>
        PingResponse: MessageTypeDefinition<_mtx_brokersim_v1_PingResponse, _mtx_brokersim_v1_PingResponse__Output>
        RequestRecord: MessageTypeDefinition<_mtx_brokersim_v1_RequestRecord, _mtx_brokersim_v1_RequestRecord__Output>
        ServerInfo: MessageTypeDefinition<_mtx_brokersim_v1_ServerInfo, _mtx_brokersim_v1_ServerInfo__Output>
        SessionRequest: MessageTypeDefinition<_mtx_brokersim_v1_SessionRequest, _mtx_brokersim_v1_SessionRequest__Output>
        SymbolInfo: MessageTypeDefinition<_mtx_brokersim_v1_SymbolInfo, _mtx_brokersim_v1_SymbolInfo__Output>
        TerminalAnswer: MessageTypeDefinition<_mtx_brokersim_v1_TerminalAnswer, _mtx_brokersim_v1_TerminalAnswer__Output>
        TerminalAnswers: MessageTypeDefinition<_mtx_brokersim_v1_TerminalAnswers, _mtx_brokersim_v1_TerminalAnswers__Output>
        TerminalCall: MessageTypeDefinition<_mtx_brokersim_v1_TerminalCall, _mtx_brokersim_v1_TerminalCall__Output>
        TerminalCalls: MessageTypeDefinition<_mtx_brokersim_v1_TerminalCalls, _mtx_brokersim_v1_TerminalCalls__Output>
      }
    }
  }
}

