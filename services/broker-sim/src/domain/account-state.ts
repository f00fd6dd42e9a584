import type { MarginMode, Platform, ServerDefinition } from './catalog';
import type { PriceFeed } from './prices';

/** An account's state on a simulated server and the effects that change it (applied live and on replay). */

export type Side = 0 | 1; // buy, sell

export interface Position {
  ticket: number;
  symbol: string;
  type: Side;
  volume: number;
  priceOpen: number;
  sl: number;
  tp: number;
  magic: number;
  comment: string;
  openedAtMs: number;
  clientId: string;
}

export interface PendingOrder {
  ticket: number;
  symbol: string;
  /** 2 buy limit, 3 sell limit, 4 buy stop, 5 sell stop, 6 buy stop limit, 7 sell stop limit. */
  type: number;
  volume: number;
  price: number;
  stopLimitPrice: number;
  sl: number;
  tp: number;
  magic: number;
  comment: string;
  expirationMs: number;
  placedAtMs: number;
  clientId: string;
}

export interface Deal {
  ticket: number;
  order: number;
  position: number;
  symbol: string;
  type: Side;
  entry: 'in' | 'out' | 'inout';
  volume: number;
  price: number;
  profit: number;
  /** Swap settled by this deal (a close pays the swap its volume accrued); absent in deals journaled before swaps. */
  swap?: number;
  timeMs: number;
  clientId: string;
  reason: 'client' | 'seed' | 'sl' | 'tp' | 'trigger';
}

/** Platform-neutral trade errors; the platform front ends turn them into MT4 error numbers or MT5 retcodes. */
export type TradeError =
  | 'requote'
  | 'rejected'
  | 'invalid_request'
  | 'invalid_order'
  | 'invalid_symbol'
  | 'invalid_ticket'
  | 'invalid_volume'
  | 'invalid_close_volume'
  | 'invalid_price'
  | 'invalid_stops'
  | 'invalid_expiration'
  | 'market_closed'
  | 'trade_disabled'
  | 'no_money'
  | 'off_quotes'
  | 'timeout';

export interface TradeOutcome {
  ok: boolean;
  error?: TradeError;
  /** A platform-native code that replaces the mapping of `error` (injected rejects carry the code asked for). */
  nativeCode?: number;
  message: string;
  order: number;
  deal: number;
  position: number;
  price: number;
  bid: number;
  ask: number;
  volume: number;
  /** For an MT4 partial close: the ticket the remainder continues under. */
  newTicket?: number;
}

export type RequestAction = 'open' | 'close' | 'delete' | 'modify';

export interface RequestRecord {
  clientId: string;
  state: 'processing' | 'done';
  action: RequestAction;
  symbol: string;
  ticket: number;
  type: number;
  volume: number;
  kind: 'position' | 'pending' | '';
  receivedAtMs: number;
  outcome?: TradeOutcome;
}

export type Effect =
  | { t: 'position_set'; position: Position }
  | { t: 'position_remove'; ticket: number }
  | { t: 'order_set'; order: PendingOrder }
  | { t: 'order_remove'; ticket: number }
  | { t: 'deal'; deal: Deal }
  | { t: 'request'; record: RequestRecord };

export interface AccountRecord {
  key: string;
  server: string;
  login: string;
  passwordHash: string;
  passwordSalt: string;
  initialBalance: number;
  leverage: number;
  marginMode: MarginMode;
  platform: Platform;
  createdAtMs: number;
}

/** Open volume of one symbol and side, kept so margin and floating profit never need a pass over positions. */
interface Exposure {
  volume: number;
  /** Σ volume × open price. */
  value: number;
  /** Σ volume × rollover day it opened on (see rolloverDay), so accrued swap needs no pass over positions either. */
  openDaysVolume: number;
}

const dayMs = 86_400_000;

/** Rollovers happen at 00:00 UTC: a position accrues one day of swap for each one it is held over. */
export function rolloverDay(timeMs: number): number {
  return Math.floor(timeMs / dayMs);
}

export class AccountState {
  readonly positions = new Map<number, Position>();
  readonly orders = new Map<number, PendingOrder>();
  readonly deals: Deal[] = [];
  readonly requests = new Map<string, RequestRecord>();
  /** `<symbol>|<side>` → exposure; updated on every position change. */
  readonly exposure = new Map<string, Exposure>();
  balance: number;
  nextSequence = 1;

  constructor(
    readonly record: AccountRecord,
    readonly server: ServerDefinition,
  ) {
    this.balance = record.initialBalance;
  }

  private expose(position: Position, sign: 1 | -1): void {
    const key = `${position.symbol}|${position.type}`;
    const current = this.exposure.get(key) ?? { volume: 0, value: 0, openDaysVolume: 0 };
    current.volume += sign * position.volume;
    current.value += sign * position.volume * position.priceOpen;
    current.openDaysVolume += sign * position.volume * rolloverDay(position.openedAtMs);
    if (Math.abs(current.volume) < 1e-9) this.exposure.delete(key);
    else this.exposure.set(key, current);
  }

  apply(effect: Effect): void {
    switch (effect.t) {
      case 'position_set': {
        const previous = this.positions.get(effect.position.ticket);
        if (previous) this.expose(previous, -1);
        this.positions.set(effect.position.ticket, effect.position);
        this.expose(effect.position, 1);
        break;
      }
      case 'position_remove': {
        const previous = this.positions.get(effect.ticket);
        if (previous) this.expose(previous, -1);
        this.positions.delete(effect.ticket);
        break;
      }
      case 'order_set':
        this.orders.set(effect.order.ticket, effect.order);
        break;
      case 'order_remove':
        this.orders.delete(effect.ticket);
        break;
      case 'deal':
        this.deals.push(effect.deal);
        this.balance = roundMoney(this.balance + effect.deal.profit + (effect.deal.swap ?? 0));
        break;
      case 'request':
        this.requests.set(effect.record.clientId, effect.record);
        break;
    }
  }
}

export interface TicketAllocator {
  next(): number;
}

export interface EngineContext {
  prices: PriceFeed;
  tickets: TicketAllocator;
  nowMs: number;
}

export interface OpenRequest {
  clientId: string;
  symbol: string;
  type: number;
  volume: number;
  /** Requested price: the pending order's price, or the price a market order expects (0: any). */
  price: number;
  stopLimitPrice: number;
  sl: number;
  tp: number;
  /** Allowed deviation from `price` in points; undefined: no check. */
  deviationPoints: number | undefined;
  magic: number;
  comment: string;
  expirationMs: number;
}

export interface CloseRequest {
  clientId: string;
  ticket: number;
  /** 0 closes the whole position. */
  volume: number;
  price: number;
  deviationPoints: number | undefined;
}

export interface OperationResult {
  outcome: TradeOutcome;
  effects: Effect[];
}

/** Money rounded to cents, as a trade server reports it. */
export function roundMoney(value: number): number {
  return Math.round(value * 100) / 100;
}
