import { isVolumeOnStep } from '@mtx/shared/trading';
import { findSymbol, type MarginMode, type Platform, type ServerDefinition, type SymbolSpec } from './catalog';
import type { PriceFeed, Quote } from './prices';

/**
 * The trading engine behind every simulated server: one account's positions, pending orders, deals and
 * balance, and the rules a trade server applies (volume limits and step, stops level, margin, deviation,
 * hedging or netting, MT4 partial closes that re-ticket the remainder). Operations are pure over the
 * account: they return the effects to apply, so the same effects rebuild the account from the journal.
 */

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

export type RequestAction = 'open' | 'close' | 'delete';

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
    const current = this.exposure.get(key) ?? { volume: 0, value: 0 };
    current.volume += sign * position.volume;
    current.value += sign * position.volume * position.priceOpen;
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
        this.balance = roundMoney(this.balance + effect.deal.profit);
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

export function roundMoney(value: number): number {
  return Math.round(value * 100) / 100;
}

function roundPrice(value: number, spec: SymbolSpec): number {
  return Number(value.toFixed(spec.instrument.digits));
}

function failure(error: TradeError, message: string, quote: Quote = { bid: 0, ask: 0 }, volume = 0): TradeOutcome {
  return { ok: false, error, message, order: 0, deal: 0, position: 0, price: 0, bid: quote.bid, ask: quote.ask, volume };
}

function result(outcome: TradeOutcome, effects: Effect[] = []): OperationResult {
  return { outcome, effects };
}

export function marginFor(spec: SymbolSpec, volume: number, price: number, leverage: number): number {
  const notional = spec.instrument.contractSize * volume * (spec.instrument.baseIsAccountCurrency ? 1 : price);
  return notional / leverage;
}

export function profitFor(spec: SymbolSpec, type: Side, volume: number, openPrice: number, closePrice: number): number {
  const difference = (closePrice - openPrice) * (type === 0 ? 1 : -1);
  const quoteCurrencyProfit = difference * spec.instrument.contractSize * volume;
  return roundMoney(spec.instrument.quoteIsAccountCurrency ? quoteCurrencyProfit : quoteCurrencyProfit / closePrice);
}

function specOf(account: AccountState, symbol: string): SymbolSpec {
  const spec = findSymbol(account.server, symbol);
  if (!spec) throw new Error(`symbol ${symbol} vanished from ${account.server.name}`);
  return spec;
}

/** Balance, floating profit, used margin and free margin at current prices, from the per-symbol exposure. */
export function accountFigures(
  account: AccountState,
  prices: PriceFeed,
): { balance: number; equity: number; margin: number; freeMargin: number } {
  let floating = 0;
  let margin = 0;
  for (const [key, exposure] of account.exposure) {
    const separator = key.lastIndexOf('|');
    const spec = specOf(account, key.slice(0, separator));
    const type = Number(key.slice(separator + 1)) as Side;
    const quote = prices.quote(spec);
    const closePrice = type === 0 ? quote.bid : quote.ask;
    const difference = (closePrice * exposure.volume - exposure.value) * (type === 0 ? 1 : -1);
    const quoteCurrencyProfit = difference * spec.instrument.contractSize;
    floating += spec.instrument.quoteIsAccountCurrency ? quoteCurrencyProfit : quoteCurrencyProfit / closePrice;
    const notional = spec.instrument.contractSize * (spec.instrument.baseIsAccountCurrency ? exposure.volume : exposure.value);
    margin += notional / account.record.leverage;
  }
  const equity = roundMoney(account.balance + floating);
  return { balance: account.balance, equity, margin: roundMoney(margin), freeMargin: roundMoney(equity - margin) };
}

function checkVolume(spec: SymbolSpec, volume: number): string | undefined {
  if (!Number.isFinite(volume) || volume <= 0) return `volume ${volume} must be greater than 0`;
  if (volume < spec.volumeMin - 1e-9) return `volume ${volume} is below the minimum ${spec.volumeMin} for ${spec.name}`;
  if (volume > spec.volumeMax + 1e-9) return `volume ${volume} is above the maximum ${spec.volumeMax} for ${spec.name}`;
  if (!isVolumeOnStep(volume, spec.volumeStep)) return `volume ${volume} is not a multiple of the step ${spec.volumeStep} for ${spec.name}`;
  return undefined;
}

/** Stop loss and take profit must keep the stops level from the price the position would close at. */
function checkStops(spec: SymbolSpec, buy: boolean, reference: number, sl: number, tp: number): string | undefined {
  const distance = spec.stopsLevel * spec.point;
  if (sl < 0 || tp < 0) return 'stop loss and take profit must not be negative';
  if (buy) {
    if (sl > 0 && sl > reference - distance + 1e-12) return `stop loss ${sl} must be at least ${spec.stopsLevel} points below ${reference}`;
    if (tp > 0 && tp < reference + distance - 1e-12)
      return `take profit ${tp} must be at least ${spec.stopsLevel} points above ${reference}`;
  } else {
    if (sl > 0 && sl < reference + distance - 1e-12) return `stop loss ${sl} must be at least ${spec.stopsLevel} points above ${reference}`;
    if (tp > 0 && tp > reference - distance + 1e-12)
      return `take profit ${tp} must be at least ${spec.stopsLevel} points below ${reference}`;
  }
  return undefined;
}

function checkPendingPrice(spec: SymbolSpec, type: number, price: number, stopLimitPrice: number, quote: Quote): string | undefined {
  const distance = spec.stopsLevel * spec.point;
  if (!(price > 0)) return 'a pending order needs a price';
  switch (type) {
    case 2:
      return price <= quote.ask - distance + 1e-12
        ? undefined
        : `buy limit price ${price} must be at least ${spec.stopsLevel} points below the ask ${quote.ask}`;
    case 3:
      return price >= quote.bid + distance - 1e-12
        ? undefined
        : `sell limit price ${price} must be at least ${spec.stopsLevel} points above the bid ${quote.bid}`;
    case 4:
      return price >= quote.ask + distance - 1e-12
        ? undefined
        : `buy stop price ${price} must be at least ${spec.stopsLevel} points above the ask ${quote.ask}`;
    case 5:
      return price <= quote.bid - distance + 1e-12
        ? undefined
        : `sell stop price ${price} must be at least ${spec.stopsLevel} points below the bid ${quote.bid}`;
    case 6:
      if (price < quote.ask + distance - 1e-12)
        return `buy stop limit stop price ${price} must be at least ${spec.stopsLevel} points above the ask ${quote.ask}`;
      return stopLimitPrice > 0 && stopLimitPrice <= price
        ? undefined
        : `buy stop limit price ${stopLimitPrice} must be above 0 and not above the stop price ${price}`;
    case 7:
      if (price > quote.bid - distance + 1e-12)
        return `sell stop limit stop price ${price} must be at least ${spec.stopsLevel} points below the bid ${quote.bid}`;
      return stopLimitPrice >= price ? undefined : `sell stop limit price ${stopLimitPrice} must not be below the stop price ${price}`;
    default:
      return `order type ${type} is not a pending type`;
  }
}

function netPosition(account: AccountState, symbol: string): Position | undefined {
  for (const position of account.positions.values()) if (position.symbol === symbol) return position;
  return undefined;
}

/** Opens a market position or places a pending order. */
export function openOrder(account: AccountState, request: OpenRequest, context: EngineContext): OperationResult {
  const spec = findSymbol(account.server, request.symbol);
  if (!spec)
    return result(
      failure(
        'invalid_symbol',
        `symbol ${request.symbol} does not exist on ${account.server.name}${account.server.symbolSuffix ? ` (its symbols end in ${account.server.symbolSuffix})` : ''}`,
      ),
    );
  const quote = context.prices.quote(spec);
  if (!Number.isInteger(request.type) || request.type < 0 || request.type > 7)
    return result(failure('invalid_order', `order type ${request.type} does not exist`, quote));
  if (account.record.platform === 'mt4' && request.type > 5) return result(failure('invalid_order', 'MT4 has no stop-limit orders', quote));
  const volumeProblem = checkVolume(spec, request.volume);
  if (volumeProblem) return result(failure('invalid_volume', volumeProblem, quote));
  if (request.expirationMs > 0 && request.expirationMs <= context.nowMs)
    return result(failure('invalid_expiration', 'expiration is in the past', quote));
  const buy = request.type % 2 === 0;
  if (request.type <= 1) return openMarket(account, spec, request, quote, buy, context);

  const priceProblem = checkPendingPrice(spec, request.type, request.price, request.stopLimitPrice, quote);
  if (priceProblem) return result(failure('invalid_price', priceProblem, quote));
  const entry = request.type >= 6 ? request.stopLimitPrice : request.price;
  const stopsProblem = checkStops(spec, buy, entry, request.sl, request.tp);
  if (stopsProblem) return result(failure('invalid_stops', stopsProblem, quote));
  const ticket = context.tickets.next();
  const order: PendingOrder = {
    ticket,
    symbol: spec.name,
    type: request.type,
    volume: request.volume,
    price: roundPrice(request.price, spec),
    stopLimitPrice: request.type >= 6 ? roundPrice(request.stopLimitPrice, spec) : 0,
    sl: request.sl,
    tp: request.tp,
    magic: request.magic,
    comment: request.comment,
    expirationMs: request.expirationMs,
    placedAtMs: context.nowMs,
    clientId: request.clientId,
  };
  return result(
    {
      ok: true,
      message: 'order placed',
      order: ticket,
      deal: 0,
      position: 0,
      price: order.price,
      bid: quote.bid,
      ask: quote.ask,
      volume: request.volume,
    },
    [{ t: 'order_set', order }],
  );
}

function openMarket(
  account: AccountState,
  spec: SymbolSpec,
  request: OpenRequest,
  quote: Quote,
  buy: boolean,
  context: EngineContext,
): OperationResult {
  const executionPrice = buy ? quote.ask : quote.bid;
  if (
    request.price > 0 &&
    request.deviationPoints !== undefined &&
    Math.abs(executionPrice - request.price) > request.deviationPoints * spec.point + 1e-12
  ) {
    return result(
      failure(
        'requote',
        `price moved: requested ${request.price}, market ${executionPrice}, allowed deviation ${request.deviationPoints} points`,
        quote,
      ),
    );
  }
  const stopsProblem = checkStops(spec, buy, buy ? quote.bid : quote.ask, request.sl, request.tp);
  if (stopsProblem) return result(failure('invalid_stops', stopsProblem, quote));

  const side: Side = buy ? 0 : 1;
  const existing = account.record.marginMode === 'netting' ? netPosition(account, spec.name) : undefined;
  const figures = accountFigures(account, context.prices);
  let additionalMargin = marginFor(spec, request.volume, executionPrice, account.record.leverage);
  if (existing && existing.type !== side) {
    const reversed = request.volume - existing.volume;
    additionalMargin =
      reversed > 1e-9
        ? marginFor(spec, reversed, executionPrice, account.record.leverage) -
          marginFor(spec, existing.volume, existing.priceOpen, account.record.leverage)
        : 0;
  }
  if (additionalMargin > 0 && additionalMargin > figures.freeMargin + 1e-9) {
    return result(
      failure('no_money', `not enough money: ${roundMoney(additionalMargin)} margin needed, ${figures.freeMargin} free`, quote),
    );
  }

  const order = context.tickets.next();
  const dealTicket = account.record.platform === 'mt4' ? order : context.tickets.next();
  const effects: Effect[] = [];
  const base = {
    ok: true,
    message: 'done',
    order,
    deal: dealTicket,
    price: executionPrice,
    bid: quote.bid,
    ask: quote.ask,
    volume: request.volume,
  };

  if (!existing) {
    const position: Position = {
      ticket: order,
      symbol: spec.name,
      type: side,
      volume: request.volume,
      priceOpen: executionPrice,
      sl: request.sl,
      tp: request.tp,
      magic: request.magic,
      comment: request.comment,
      openedAtMs: context.nowMs,
      clientId: request.clientId,
    };
    effects.push({ t: 'position_set', position });
    effects.push({
      t: 'deal',
      deal: {
        ticket: dealTicket,
        order,
        position: order,
        symbol: spec.name,
        type: side,
        entry: 'in',
        volume: request.volume,
        price: executionPrice,
        profit: 0,
        timeMs: context.nowMs,
        clientId: request.clientId,
        reason: 'client',
      },
    });
    return result({ ...base, position: order }, effects);
  }

  // Netting: the deal adds to, reduces, closes or reverses the one position of the symbol.
  if (existing.type === side) {
    const volume = Number((existing.volume + request.volume).toFixed(8));
    const priceOpen = roundPrice((existing.priceOpen * existing.volume + executionPrice * request.volume) / volume, spec);
    effects.push({
      t: 'position_set',
      position: { ...existing, volume, priceOpen, sl: request.sl || existing.sl, tp: request.tp || existing.tp },
    });
    effects.push({
      t: 'deal',
      deal: {
        ticket: dealTicket,
        order,
        position: existing.ticket,
        symbol: spec.name,
        type: side,
        entry: 'in',
        volume: request.volume,
        price: executionPrice,
        profit: 0,
        timeMs: context.nowMs,
        clientId: request.clientId,
        reason: 'client',
      },
    });
    return result({ ...base, position: existing.ticket }, effects);
  }
  const closedVolume = Math.min(existing.volume, request.volume);
  const profit = profitFor(spec, existing.type, closedVolume, existing.priceOpen, executionPrice);
  const remainder = Number((request.volume - existing.volume).toFixed(8));
  let entry: Deal['entry'] = 'out';
  if (remainder > 1e-9) {
    entry = 'inout';
    effects.push({
      t: 'position_set',
      position: {
        ...existing,
        type: side,
        volume: remainder,
        priceOpen: executionPrice,
        sl: request.sl,
        tp: request.tp,
        openedAtMs: context.nowMs,
      },
    });
  } else if (remainder < -1e-9) {
    effects.push({ t: 'position_set', position: { ...existing, volume: Number((-remainder).toFixed(8)) } });
  } else {
    effects.push({ t: 'position_remove', ticket: existing.ticket });
  }
  effects.push({
    t: 'deal',
    deal: {
      ticket: dealTicket,
      order,
      position: existing.ticket,
      symbol: spec.name,
      type: side,
      entry,
      volume: request.volume,
      price: executionPrice,
      profit,
      timeMs: context.nowMs,
      clientId: request.clientId,
      reason: 'client',
    },
  });
  return result({ ...base, position: existing.ticket }, effects);
}

/** Closes a position in whole or in part. */
export function closePosition(
  account: AccountState,
  request: CloseRequest,
  context: EngineContext,
  reason: Deal['reason'] = 'client',
): OperationResult {
  const position = account.positions.get(request.ticket);
  if (!position) {
    const pending = account.orders.has(request.ticket);
    return result(
      failure(
        'invalid_ticket',
        pending ? `ticket ${request.ticket} is a pending order; delete it instead` : `no open position with ticket ${request.ticket}`,
      ),
    );
  }
  const spec = specOf(account, position.symbol);
  const quote = context.prices.quote(spec);
  const closePrice = position.type === 0 ? quote.bid : quote.ask;
  const volume = request.volume > 0 ? request.volume : position.volume;
  if (volume > position.volume + 1e-9)
    return result(failure('invalid_close_volume', `close volume ${volume} exceeds the position's ${position.volume}`, quote));
  const volumeProblem = checkVolume(spec, volume);
  if (volumeProblem) return result(failure('invalid_volume', volumeProblem, quote));
  const remainder = Number((position.volume - volume).toFixed(8));
  if (remainder > 1e-9 && remainder < spec.volumeMin - 1e-9) {
    return result(failure('invalid_volume', `closing ${volume} would leave ${remainder}, below the minimum ${spec.volumeMin}`, quote));
  }
  if (
    request.price > 0 &&
    request.deviationPoints !== undefined &&
    Math.abs(closePrice - request.price) > request.deviationPoints * spec.point + 1e-12
  ) {
    return result(
      failure(
        'requote',
        `price moved: requested ${request.price}, market ${closePrice}, allowed deviation ${request.deviationPoints} points`,
        quote,
      ),
    );
  }
  const profit = profitFor(spec, position.type, volume, position.priceOpen, closePrice);
  const mt4 = account.record.platform === 'mt4';
  const order = mt4 ? position.ticket : context.tickets.next();
  const dealTicket = mt4 ? position.ticket : context.tickets.next();
  const effects: Effect[] = [];
  let newTicket: number | undefined;
  if (remainder > 1e-9) {
    if (mt4) {
      // MT4 closes the ticket and carries the rest on a new ticket commented "from #<old>".
      newTicket = context.tickets.next();
      effects.push({ t: 'position_remove', ticket: position.ticket });
      effects.push({
        t: 'position_set',
        position: { ...position, ticket: newTicket, volume: remainder, comment: `from #${position.ticket}`.slice(0, 31) },
      });
    } else {
      effects.push({ t: 'position_set', position: { ...position, volume: remainder } });
    }
  } else {
    effects.push({ t: 'position_remove', ticket: position.ticket });
  }
  const closingSide: Side = position.type === 0 ? 1 : 0;
  effects.push({
    t: 'deal',
    deal: {
      ticket: dealTicket,
      order,
      position: position.ticket,
      symbol: spec.name,
      type: closingSide,
      entry: 'out',
      volume,
      price: closePrice,
      profit,
      timeMs: context.nowMs,
      clientId: request.clientId,
      reason,
    },
  });
  const outcome: TradeOutcome = {
    ok: true,
    message: 'done',
    order,
    deal: dealTicket,
    position: position.ticket,
    price: closePrice,
    bid: quote.bid,
    ask: quote.ask,
    volume,
  };
  if (newTicket !== undefined) outcome.newTicket = newTicket;
  return result(outcome, effects);
}

/** Deletes a pending order. */
export function deleteOrder(account: AccountState, ticket: number, context: EngineContext): OperationResult {
  const order = account.orders.get(ticket);
  if (!order) {
    const position = account.positions.has(ticket);
    return result(
      failure(
        'invalid_ticket',
        position ? `ticket ${ticket} is an open position; close it instead` : `no pending order with ticket ${ticket}`,
      ),
    );
  }
  const quote = context.prices.quote(specOf(account, order.symbol));
  return result(
    {
      ok: true,
      message: 'order deleted',
      order: ticket,
      deal: 0,
      position: 0,
      price: order.price,
      bid: quote.bid,
      ask: quote.ask,
      volume: order.volume,
    },
    [{ t: 'order_remove', ticket }],
  );
}

/**
 * The next thing the market does to an account at current prices: a pending order that triggers (a
 * stop-limit becomes a limit order), a position that hits its stop loss or take profit, or an order past its
 * expiration. The caller applies it and asks again, so each event sees the state the previous one left.
 */
export function nextMarketEvent(account: AccountState, context: EngineContext): Effect[] | undefined {
  for (const order of [...account.orders.values()]) {
    const spec = findSymbol(account.server, order.symbol);
    if (!spec) continue;
    if (order.expirationMs > 0 && order.expirationMs <= context.nowMs) {
      return [{ t: 'order_remove', ticket: order.ticket }];
    }
    const quote = context.prices.quote(spec);
    const triggered =
      (order.type === 2 && quote.ask <= order.price) ||
      (order.type === 3 && quote.bid >= order.price) ||
      (order.type === 4 && quote.ask >= order.price) ||
      (order.type === 5 && quote.bid <= order.price) ||
      (order.type === 6 && quote.ask >= order.price) ||
      (order.type === 7 && quote.bid <= order.price);
    if (!triggered) continue;
    if (order.type >= 6) {
      return [{ t: 'order_set', order: { ...order, type: order.type === 6 ? 2 : 3, price: order.stopLimitPrice, stopLimitPrice: 0 } }];
    }
    const side: Side = order.type % 2 === 0 ? 0 : 1;
    const price = side === 0 ? quote.ask : quote.bid;
    const dealTicket = account.record.platform === 'mt4' ? order.ticket : context.tickets.next();
    const effects: Effect[] = [{ t: 'order_remove', ticket: order.ticket }];
    const existing = account.record.marginMode === 'netting' ? netPosition(account, spec.name) : undefined;
    if (existing) {
      // A netting account folds the fill into its one position, as a market deal would.
      const opened = openMarket(
        account,
        spec,
        {
          clientId: order.clientId,
          symbol: spec.name,
          type: side,
          volume: order.volume,
          price: 0,
          stopLimitPrice: 0,
          sl: order.sl,
          tp: order.tp,
          deviationPoints: undefined,
          magic: order.magic,
          comment: order.comment,
          expirationMs: 0,
        },
        quote,
        side === 0,
        context,
      );
      // A fill the account cannot carry any more (no money) cancels the order, as servers do.
      return opened.outcome.ok ? [...effects, ...opened.effects] : effects;
    }
    effects.push({
      t: 'position_set',
      position: {
        ticket: order.ticket,
        symbol: spec.name,
        type: side,
        volume: order.volume,
        priceOpen: price,
        sl: order.sl,
        tp: order.tp,
        magic: order.magic,
        comment: order.comment,
        openedAtMs: context.nowMs,
        clientId: order.clientId,
      },
    });
    effects.push({
      t: 'deal',
      deal: {
        ticket: dealTicket,
        order: order.ticket,
        position: order.ticket,
        symbol: spec.name,
        type: side,
        entry: 'in',
        volume: order.volume,
        price,
        profit: 0,
        timeMs: context.nowMs,
        clientId: order.clientId,
        reason: 'trigger',
      },
    });
    return effects;
  }
  for (const position of [...account.positions.values()]) {
    if (!position.sl && !position.tp) continue;
    const spec = findSymbol(account.server, position.symbol);
    if (!spec) continue;
    const quote = context.prices.quote(spec);
    const closePrice = position.type === 0 ? quote.bid : quote.ask;
    const hitSl = position.sl > 0 && (position.type === 0 ? closePrice <= position.sl : closePrice >= position.sl);
    const hitTp = position.tp > 0 && (position.type === 0 ? closePrice >= position.tp : closePrice <= position.tp);
    if (!hitSl && !hitTp) continue;
    const closed = closePosition(
      account,
      { clientId: '', ticket: position.ticket, volume: 0, price: 0, deviationPoints: undefined },
      context,
      hitSl ? 'sl' : 'tp',
    );
    if (closed.outcome.ok) return closed.effects;
  }
  return undefined;
}
