import type { InspectReply__Output } from '../generated/proto/mtx/connector/v1/InspectReply';
import type { InspectRequest__Output } from '../generated/proto/mtx/connector/v1/InspectRequest';
import { messageCodec } from '../rpc/proto';

/**
 * TypeScript shapes of proto/connector/v1/connector.proto (the NATS protocol between execution and the
 * connectors) and their codecs. Field names are the proto's snake_case; optional fields are undefined when
 * unset.
 */

export type ConnectorOp = 'place' | 'close' | 'modify' | 'lookup' | 'ping' | 'positions' | 'state' | 'history' | 'inspect';
export const connectorOps: readonly ConnectorOp[] = [
  'place',
  'close',
  'modify',
  'lookup',
  'ping',
  'positions',
  'state',
  'history',
  'inspect',
];

export interface OrderLegMessage {
  client_id: string;
  leg_index: number;
  symbol: string;
  operation: string;
  volume: number;
  price?: number;
  slippage?: number;
  stop_loss?: number;
  take_profit?: number;
  stop_limit_price?: number;
  expiration?: string;
  comment?: string;
  expert_id?: number;
}

export interface PlaceRequestMessage {
  account_id: string;
  legs: OrderLegMessage[];
  deadline_unix_ms: number;
  batch_id: string;
}

export type LegStatus = 'filled' | 'placed' | 'rejected' | 'unavailable' | 'unknown';

export interface LegResultMessage {
  client_id: string;
  leg_index: number;
  status: LegStatus;
  order: number;
  deal: number;
  price?: number;
  bid?: number;
  ask?: number;
  retcode: number;
  retcode_description: string;
  message: string;
  latency_ms: number;
  volume: number;
  symbol: string;
  operation: string;
}

export interface PlaceReplyMessage {
  account_id: string;
  results: LegResultMessage[];
}

export interface CloseSelectorMessage {
  symbol: string;
  symbol_match: string;
  side: string;
  kind: string;
  magic?: number;
}

export interface CloseRequestMessage {
  account_id: string;
  selector?: CloseSelectorMessage;
  tickets: number[];
  volume?: number;
  slippage?: number;
  client_id_base: string;
  deadline_unix_ms: number;
  closes_max: number;
  batch_id: string;
  /** The account's symbol suffix, for `base` selectors ("" or unset: none). */
  symbol_suffix?: string;
}

export type TicketStatus = 'closed' | 'failed' | 'skipped' | 'unknown';
export type CloseAccountStatus = 'closed' | 'partial' | 'nothing_matched' | 'failed' | 'unavailable' | 'unknown';

export interface TicketResultMessage {
  ticket: number;
  symbol: string;
  type: string;
  kind: string;
  volume: number;
  status: TicketStatus;
  retcode: number;
  retcode_description: string;
  price?: number;
  message: string;
  client_id: string;
}

export interface CloseReplyMessage {
  account_id: string;
  status: CloseAccountStatus;
  matched: number;
  closed: number;
  message: string;
  results: TicketResultMessage[];
  latency_ms: number;
}

export interface LookupRequestMessage {
  account_id: string;
  client_ids: string[];
  client_id_prefix: string;
  /** Start of the window a prefix is looked up in (UTC ms); 0 with a prefix finds nothing. */
  from_unix_ms: number;
}

export interface LookupEntryMessage {
  client_id: string;
  state: 'done' | 'processing' | 'not_found';
  action: string;
  leg?: LegResultMessage;
  ticket?: TicketResultMessage;
}

export interface LookupReplyMessage {
  account_id: string;
  connected: boolean;
  message: string;
  entries: LookupEntryMessage[];
}

export interface PingRequestMessage {
  account_id: string;
}

export interface PingReplyMessage {
  connected: boolean;
  server: string;
  latency_ms: number;
  platform: string;
  symbol_suffix: string;
  margin_mode: string;
  message: string;
  reason: string;
}

export interface PositionsRequestMessage {
  account_id: string;
  selector?: CloseSelectorMessage;
  deadline_unix_ms: number;
  /** The account's symbol suffix, for `base` selectors ("" or unset: none). */
  symbol_suffix?: string;
}

export interface OpenPositionMessage {
  ticket: number;
  symbol: string;
  type: string;
  kind: 'position' | 'pending';
  volume: number;
  open_price: number;
  current_price: number;
  stop_loss: number;
  take_profit: number;
  profit: number;
  swap: number;
  magic: number;
  comment: string;
  opened_at_unix_ms: number;
}

export type PositionsStatus = 'ok' | 'unavailable';

export interface PositionsReplyMessage {
  account_id: string;
  status: PositionsStatus;
  message: string;
  positions: OpenPositionMessage[];
  latency_ms: number;
}

export interface StateRequestMessage {
  account_id: string;
}

export interface StateReplyMessage {
  account_id: string;
  connected: boolean;
  reason: string;
  message: string;
  server: string;
  currency: string;
  leverage: number;
  balance: number;
  equity: number;
  margin: number;
  free_margin: number;
  margin_level: number;
  profit: number;
  server_time_unix_ms: number;
  margin_mode: string;
  trade_allowed: boolean;
  latency_ms: number;
}

const prefix = 'mtx.connector.v1.';

export const connectorCodecs = {
  placeRequest: messageCodec<PlaceRequestMessage>(`${prefix}PlaceRequest`),
  placeReply: messageCodec<PlaceReplyMessage>(`${prefix}PlaceReply`),
  closeRequest: messageCodec<CloseRequestMessage>(`${prefix}CloseRequest`),
  closeReply: messageCodec<CloseReplyMessage>(`${prefix}CloseReply`),
  lookupRequest: messageCodec<LookupRequestMessage>(`${prefix}LookupRequest`),
  lookupReply: messageCodec<LookupReplyMessage>(`${prefix}LookupReply`),
  pingRequest: messageCodec<PingRequestMessage>(`${prefix}PingRequest`),
  pingReply: messageCodec<PingReplyMessage>(`${prefix}PingReply`),
  positionsRequest: messageCodec<PositionsRequestMessage>(`${prefix}PositionsRequest`),
  positionsReply: messageCodec<PositionsReplyMessage>(`${prefix}PositionsReply`),
  stateRequest: messageCodec<StateRequestMessage>(`${prefix}StateRequest`),
  stateReply: messageCodec<StateReplyMessage>(`${prefix}StateReply`),
  // The pre-trade reads (proto/connector/v1/inspect.proto), typed by the generated messages.
  inspectRequest: messageCodec<InspectRequest__Output>(`${prefix}InspectRequest`),
  inspectReply: messageCodec<InspectReply__Output>(`${prefix}InspectReply`),
};

/** `term.<platform>.<account_id>.<op>` under a configurable root (tests isolate themselves with their own). */
export function terminalSubject(root: string, platform: string, accountId: string, op: ConnectorOp): string {
  return `${root}.${platform}.${accountId}.${op}`;
}
