/** Opening trades: market orders (hedging or netting) and pending orders, as effects over the account. */
import { findSymbol, type SymbolSpec } from './catalog';
import type { Quote } from './prices';
import type {
  Side,
  Position,
  PendingOrder,
  Deal,
  Effect,
  AccountState,
  EngineContext,
  OpenRequest,
  OperationResult,
} from './account-state';
import {
  roundPrice,
  failure,
  result,
  marginFor,
  profitFor,
  swapFor,
  accountFigures,
  checkVolume,
  checkStops,
  checkPendingPrice,
  netPosition,
} from './trade-rules';
import { roundMoney } from './account-state';

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

export function openMarket(
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
  const figures = accountFigures(account, context.prices, context.nowMs);
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
  const swap = swapFor(spec, existing, context.nowMs, closedVolume);
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
      swap,
      timeMs: context.nowMs,
      clientId: request.clientId,
      reason: 'client',
    },
  });
  return result({ ...base, position: existing.ticket }, effects);
}
