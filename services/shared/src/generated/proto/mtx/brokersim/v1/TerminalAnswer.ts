// Original file: proto/brokersim/v1/brokersim.proto

import type { PingResponse as _mtx_brokersim_v1_PingResponse, PingResponse__Output as _mtx_brokersim_v1_PingResponse__Output } from '../../../mtx/brokersim/v1/PingResponse';
import type { SymbolInfo as _mtx_brokersim_v1_SymbolInfo, SymbolInfo__Output as _mtx_brokersim_v1_SymbolInfo__Output } from '../../../mtx/brokersim/v1/SymbolInfo';
import type { GetTicketResponse as _mtx_brokersim_v1_GetTicketResponse, GetTicketResponse__Output as _mtx_brokersim_v1_GetTicketResponse__Output } from '../../../mtx/brokersim/v1/GetTicketResponse';
import type { Mt4Result as _mtx_brokersim_v1_Mt4Result, Mt4Result__Output as _mtx_brokersim_v1_Mt4Result__Output } from '../../../mtx/brokersim/v1/Mt4Result';
import type { Mt4OrdersResponse as _mtx_brokersim_v1_Mt4OrdersResponse, Mt4OrdersResponse__Output as _mtx_brokersim_v1_Mt4OrdersResponse__Output } from '../../../mtx/brokersim/v1/Mt4OrdersResponse';
import type { Mt5TradeResult as _mtx_brokersim_v1_Mt5TradeResult, Mt5TradeResult__Output as _mtx_brokersim_v1_Mt5TradeResult__Output } from '../../../mtx/brokersim/v1/Mt5TradeResult';
import type { Mt5PositionsResponse as _mtx_brokersim_v1_Mt5PositionsResponse, Mt5PositionsResponse__Output as _mtx_brokersim_v1_Mt5PositionsResponse__Output } from '../../../mtx/brokersim/v1/Mt5PositionsResponse';
import type { Mt5OrdersResponse as _mtx_brokersim_v1_Mt5OrdersResponse, Mt5OrdersResponse__Output as _mtx_brokersim_v1_Mt5OrdersResponse__Output } from '../../../mtx/brokersim/v1/Mt5OrdersResponse';
import type { LookupRequestsResponse as _mtx_brokersim_v1_LookupRequestsResponse, LookupRequestsResponse__Output as _mtx_brokersim_v1_LookupRequestsResponse__Output } from '../../../mtx/brokersim/v1/LookupRequestsResponse';
import type { AccountInfoResponse as _mtx_brokersim_v1_AccountInfoResponse, AccountInfoResponse__Output as _mtx_brokersim_v1_AccountInfoResponse__Output } from '../../../mtx/brokersim/v1/AccountInfoResponse';
import type { Long } from '@grpc/proto-loader';

export interface TerminalAnswer {
  'call_id'?: (number | string | Long);
  'code'?: (number);
  'message'?: (string);
  'ping'?: (_mtx_brokersim_v1_PingResponse | null);
  'get_symbol'?: (_mtx_brokersim_v1_SymbolInfo | null);
  'get_ticket'?: (_mtx_brokersim_v1_GetTicketResponse | null);
  'mt4_order_send'?: (_mtx_brokersim_v1_Mt4Result | null);
  'mt4_order_close'?: (_mtx_brokersim_v1_Mt4Result | null);
  'mt4_order_delete'?: (_mtx_brokersim_v1_Mt4Result | null);
  'mt4_orders'?: (_mtx_brokersim_v1_Mt4OrdersResponse | null);
  'mt5_order_send'?: (_mtx_brokersim_v1_Mt5TradeResult | null);
  'mt5_positions'?: (_mtx_brokersim_v1_Mt5PositionsResponse | null);
  'mt5_orders'?: (_mtx_brokersim_v1_Mt5OrdersResponse | null);
  'lookup_requests'?: (_mtx_brokersim_v1_LookupRequestsResponse | null);
  'account_info'?: (_mtx_brokersim_v1_AccountInfoResponse | null);
  'response'?: "ping"|"get_symbol"|"get_ticket"|"mt4_order_send"|"mt4_order_close"|"mt4_order_delete"|"mt4_orders"|"mt5_order_send"|"mt5_positions"|"mt5_orders"|"lookup_requests"|"account_info";
}

export interface TerminalAnswer__Output {
  'call_id': (number);
  'code': (number);
  'message': (string);
  'ping'?: (_mtx_brokersim_v1_PingResponse__Output | null);
  'get_symbol'?: (_mtx_brokersim_v1_SymbolInfo__Output | null);
  'get_ticket'?: (_mtx_brokersim_v1_GetTicketResponse__Output | null);
  'mt4_order_send'?: (_mtx_brokersim_v1_Mt4Result__Output | null);
  'mt4_order_close'?: (_mtx_brokersim_v1_Mt4Result__Output | null);
  'mt4_order_delete'?: (_mtx_brokersim_v1_Mt4Result__Output | null);
  'mt4_orders'?: (_mtx_brokersim_v1_Mt4OrdersResponse__Output | null);
  'mt5_order_send'?: (_mtx_brokersim_v1_Mt5TradeResult__Output | null);
  'mt5_positions'?: (_mtx_brokersim_v1_Mt5PositionsResponse__Output | null);
  'mt5_orders'?: (_mtx_brokersim_v1_Mt5OrdersResponse__Output | null);
  'lookup_requests'?: (_mtx_brokersim_v1_LookupRequestsResponse__Output | null);
  'account_info'?: (_mtx_brokersim_v1_AccountInfoResponse__Output | null);
  'response'?: "ping"|"get_symbol"|"get_ticket"|"mt4_order_send"|"mt4_order_close"|"mt4_order_delete"|"mt4_orders"|"mt5_order_send"|"mt5_positions"|"mt5_orders"|"lookup_requests"|"account_info";
}
