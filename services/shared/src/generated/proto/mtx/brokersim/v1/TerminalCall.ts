// Original file: proto/brokersim/v1/brokersim.proto

import type { SessionRequest as _mtx_brokersim_v1_SessionRequest, SessionRequest__Output as _mtx_brokersim_v1_SessionRequest__Output } from '../../../mtx/brokersim/v1/SessionRequest';
import type { GetSymbolRequest as _mtx_brokersim_v1_GetSymbolRequest, GetSymbolRequest__Output as _mtx_brokersim_v1_GetSymbolRequest__Output } from '../../../mtx/brokersim/v1/GetSymbolRequest';
import type { GetTicketRequest as _mtx_brokersim_v1_GetTicketRequest, GetTicketRequest__Output as _mtx_brokersim_v1_GetTicketRequest__Output } from '../../../mtx/brokersim/v1/GetTicketRequest';
import type { Mt4OrderSendRequest as _mtx_brokersim_v1_Mt4OrderSendRequest, Mt4OrderSendRequest__Output as _mtx_brokersim_v1_Mt4OrderSendRequest__Output } from '../../../mtx/brokersim/v1/Mt4OrderSendRequest';
import type { Mt4OrderCloseRequest as _mtx_brokersim_v1_Mt4OrderCloseRequest, Mt4OrderCloseRequest__Output as _mtx_brokersim_v1_Mt4OrderCloseRequest__Output } from '../../../mtx/brokersim/v1/Mt4OrderCloseRequest';
import type { Mt4OrderDeleteRequest as _mtx_brokersim_v1_Mt4OrderDeleteRequest, Mt4OrderDeleteRequest__Output as _mtx_brokersim_v1_Mt4OrderDeleteRequest__Output } from '../../../mtx/brokersim/v1/Mt4OrderDeleteRequest';
import type { Mt5TradeRequest as _mtx_brokersim_v1_Mt5TradeRequest, Mt5TradeRequest__Output as _mtx_brokersim_v1_Mt5TradeRequest__Output } from '../../../mtx/brokersim/v1/Mt5TradeRequest';
import type { LookupRequestsRequest as _mtx_brokersim_v1_LookupRequestsRequest, LookupRequestsRequest__Output as _mtx_brokersim_v1_LookupRequestsRequest__Output } from '../../../mtx/brokersim/v1/LookupRequestsRequest';
import type { Long } from '@grpc/proto-loader';

export interface TerminalCall {
  'call_id'?: (number | string | Long);
  'deadline_unix_ms'?: (number | string | Long);
  'traceparent'?: (string);
  'tracestate'?: (string);
  'cancel'?: (boolean);
  'ping'?: (_mtx_brokersim_v1_SessionRequest | null);
  'get_symbol'?: (_mtx_brokersim_v1_GetSymbolRequest | null);
  'get_ticket'?: (_mtx_brokersim_v1_GetTicketRequest | null);
  'mt4_order_send'?: (_mtx_brokersim_v1_Mt4OrderSendRequest | null);
  'mt4_order_close'?: (_mtx_brokersim_v1_Mt4OrderCloseRequest | null);
  'mt4_order_delete'?: (_mtx_brokersim_v1_Mt4OrderDeleteRequest | null);
  'mt4_orders'?: (_mtx_brokersim_v1_SessionRequest | null);
  'mt5_order_send'?: (_mtx_brokersim_v1_Mt5TradeRequest | null);
  'mt5_positions'?: (_mtx_brokersim_v1_SessionRequest | null);
  'mt5_orders'?: (_mtx_brokersim_v1_SessionRequest | null);
  'lookup_requests'?: (_mtx_brokersim_v1_LookupRequestsRequest | null);
  'account_info'?: (_mtx_brokersim_v1_SessionRequest | null);
  'request'?: "ping"|"get_symbol"|"get_ticket"|"mt4_order_send"|"mt4_order_close"|"mt4_order_delete"|"mt4_orders"|"mt5_order_send"|"mt5_positions"|"mt5_orders"|"lookup_requests"|"account_info";
}

export interface TerminalCall__Output {
  'call_id': (number);
  'deadline_unix_ms': (number);
  'traceparent': (string);
  'tracestate': (string);
  'cancel': (boolean);
  'ping'?: (_mtx_brokersim_v1_SessionRequest__Output | null);
  'get_symbol'?: (_mtx_brokersim_v1_GetSymbolRequest__Output | null);
  'get_ticket'?: (_mtx_brokersim_v1_GetTicketRequest__Output | null);
  'mt4_order_send'?: (_mtx_brokersim_v1_Mt4OrderSendRequest__Output | null);
  'mt4_order_close'?: (_mtx_brokersim_v1_Mt4OrderCloseRequest__Output | null);
  'mt4_order_delete'?: (_mtx_brokersim_v1_Mt4OrderDeleteRequest__Output | null);
  'mt4_orders'?: (_mtx_brokersim_v1_SessionRequest__Output | null);
  'mt5_order_send'?: (_mtx_brokersim_v1_Mt5TradeRequest__Output | null);
  'mt5_positions'?: (_mtx_brokersim_v1_SessionRequest__Output | null);
  'mt5_orders'?: (_mtx_brokersim_v1_SessionRequest__Output | null);
  'lookup_requests'?: (_mtx_brokersim_v1_LookupRequestsRequest__Output | null);
  'account_info'?: (_mtx_brokersim_v1_SessionRequest__Output | null);
  'request'?: "ping"|"get_symbol"|"get_ticket"|"mt4_order_send"|"mt4_order_close"|"mt4_order_delete"|"mt4_orders"|"mt5_order_send"|"mt5_positions"|"mt5_orders"|"lookup_requests"|"account_info";
}
