/**
 * The session calls a terminal sends over its one long-lived stream (brokersim.v1 `Terminal`), by method name
 * and the oneof field that carries them in TerminalCall and TerminalAnswer.
 */
export const terminalCallFields = {
  Ping: 'ping',
  GetSymbol: 'get_symbol',
  GetTicket: 'get_ticket',
  Mt4OrderSend: 'mt4_order_send',
  Mt4OrderClose: 'mt4_order_close',
  Mt4OrderDelete: 'mt4_order_delete',
  Mt4Orders: 'mt4_orders',
  Mt5OrderSend: 'mt5_order_send',
  Mt5Positions: 'mt5_positions',
  Mt5Orders: 'mt5_orders',
  LookupRequests: 'lookup_requests',
  AccountInfo: 'account_info',
} as const;

export type TerminalMethod = keyof typeof terminalCallFields;
export type TerminalField = (typeof terminalCallFields)[TerminalMethod];

export function isTerminalMethod(method: string): method is TerminalMethod {
  return Object.hasOwn(terminalCallFields, method);
}

/** A frame from terminal to trade server: one call, or the cancellation of one. */
export interface TerminalCallFrame {
  call_id: number;
  deadline_unix_ms: number;
  traceparent: string;
  tracestate: string;
  cancel: boolean;
  /** Which oneof field is set (proto-loader's `oneofs: true`). */
  request?: TerminalField;
  [field: string]: unknown;
}

/** A frame from trade server to terminal: one call's answer, or its gRPC status when it failed. */
export interface TerminalAnswerFrame {
  call_id: number;
  code: number;
  message: string;
  response?: TerminalField;
  [field: string]: unknown;
}
