import type { Broker } from '../app/broker';
import type { TradeCall } from '../app/broker-types';
import type { AccountState, EngineContext, OperationResult } from '../domain/engine';
import { checkPendingPrice, checkStops, closePriceOf, failure, result, roundPrice, specOf } from '../domain/trade-rules';

/**
 * Changing the stops of a position, or the price, stops and expiration of a pending order: MT5
 * `TRADE_ACTION_SLTP` / `TRADE_ACTION_MODIFY` and MT4 `OrderModify` (docs/terminal-bridge.md, "modify"). Each
 * value is the full new one (the EA fills absent arguments with the current values).
 */
export interface ModifyRequest {
  ticket: number;
  sl: number;
  tp: number;
  /** Pending orders only. */
  price: number;
  stopLimitPrice: number;
  expirationMs: number;
}

/** Outcome `error` `invalid_request` with this message when nothing would change (MT5 10025, MT4 1). */
export const noChangesMessage = 'no changes';

export function modifyTicket(account: AccountState, request: ModifyRequest, context: EngineContext): OperationResult {
  const position = account.positions.get(request.ticket);
  const order = account.orders.get(request.ticket);
  const symbol = position?.symbol ?? order?.symbol;
  if (!symbol) return result(failure('invalid_ticket', `no open position or pending order with ticket ${request.ticket}`));
  const spec = specOf(account, symbol);
  const quote = context.prices.quote(spec);
  const sl = request.sl > 0 ? roundPrice(request.sl, spec) : 0;
  const tp = request.tp > 0 ? roundPrice(request.tp, spec) : 0;
  const done = (volume: number, price: number) => ({
    ok: true,
    message: 'done',
    order: request.ticket,
    deal: 0,
    position: position ? request.ticket : 0,
    price,
    bid: quote.bid,
    ask: quote.ask,
    volume,
  });
  if (position) {
    if (sl === position.sl && tp === position.tp) return result(failure('invalid_request', noChangesMessage, quote));
    const stops = checkStops(spec, position.type === 0, closePriceOf(quote, position.type), sl, tp);
    if (stops) return result(failure('invalid_stops', stops, quote));
    return result(done(position.volume, position.priceOpen), [{ t: 'position_set', position: { ...position, sl, tp } }]);
  }
  const pending = order!;
  const price = request.price > 0 ? roundPrice(request.price, spec) : pending.price;
  const stopLimitPrice = request.stopLimitPrice > 0 ? roundPrice(request.stopLimitPrice, spec) : 0;
  const unchanged =
    price === pending.price &&
    sl === pending.sl &&
    tp === pending.tp &&
    stopLimitPrice === pending.stopLimitPrice &&
    request.expirationMs === pending.expirationMs;
  if (unchanged) return result(failure('invalid_request', noChangesMessage, quote));
  const priceProblem = checkPendingPrice(spec, pending.type, price, stopLimitPrice, quote);
  if (priceProblem) return result(failure('invalid_price', priceProblem, quote));
  const entry = stopLimitPrice > 0 ? stopLimitPrice : price;
  const stops = checkStops(spec, pending.type % 2 === 0, entry, sl, tp);
  if (stops) return result(failure('invalid_stops', stops, quote));
  if (request.expirationMs > 0 && request.expirationMs <= context.nowMs)
    return result(failure('invalid_expiration', 'expiration is in the past', quote));
  return result(done(pending.volume, price), [
    { t: 'order_set', order: { ...pending, price, stopLimitPrice, sl, tp, expirationMs: request.expirationMs } },
  ]);
}

/** Runs a modify through broker-sim's trade pipeline (faults, latency, journal), as any trade request. */
export function modifyThroughBroker(broker: Broker, call: TradeCall, request: ModifyRequest) {
  return broker.trade(
    call,
    'modify',
    (account) => {
      const item = account.positions.get(request.ticket) ?? account.orders.get(request.ticket);
      const kind = account.positions.has(request.ticket) ? 'position' : 'pending';
      return { symbol: item?.symbol ?? '', ticket: request.ticket, type: item?.type ?? 0, volume: item?.volume ?? 0, kind };
    },
    (account, context) => modifyTicket(account, request, context),
  );
}
