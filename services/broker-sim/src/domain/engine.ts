import { findSymbol } from './catalog';
import type { Side, Deal, TradeOutcome, Effect, AccountState, EngineContext, CloseRequest, OperationResult } from './account-state';
import { failure, result, profitFor, specOf, checkVolume, netPosition, swapFor } from './trade-rules';

/**
 * The trading engine behind every simulated server: one account's positions, pending orders, deals and
 * balance, and the rules a trade server applies (volume limits and step, stops level, margin, deviation,
 * hedging or netting, MT4 partial closes that re-ticket the remainder). Operations are pure over the
 * account: they return the effects to apply, so the same effects rebuild the account from the journal.
 */

export * from './account-state';
export { openOrder } from './opening';
import { openMarket } from './opening';
export {
  accountFigures,
  closePriceOf,
  marginFor,
  profitFor,
  swapFor,
  triggerPriceOf,
  valuePosition,
  type AccountFigures,
} from './trade-rules';

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
  const swap = swapFor(spec, position, context.nowMs, volume);
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
      swap,
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
