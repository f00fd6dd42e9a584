import type { Broker } from '../app/broker';
import type { ServerDefinition } from '../domain/catalog';
import type { AccountState, PendingOrder, Position, RequestRecord, TradeError, TradeOutcome } from '../domain/engine';

/** How broker-sim's answers look on the wire: each platform's result codes and order shapes, valued now. */

/** Neutral trade errors as MT4 error numbers. */
const mt4Codes: Record<TradeError, number> = {
  requote: 138,
  rejected: 4,
  invalid_request: 3,
  invalid_order: 3,
  invalid_symbol: 4106,
  invalid_ticket: 4108,
  invalid_volume: 131,
  invalid_close_volume: 131,
  invalid_price: 129,
  invalid_stops: 130,
  invalid_expiration: 147,
  market_closed: 132,
  trade_disabled: 133,
  no_money: 134,
  off_quotes: 136,
  timeout: 128,
};

/** Neutral trade errors as MT5 retcodes. */
const mt5Codes: Record<TradeError, number> = {
  requote: 10004,
  rejected: 10006,
  invalid_request: 10013,
  invalid_order: 10035,
  invalid_symbol: 10013,
  invalid_ticket: 10013,
  invalid_volume: 10014,
  invalid_close_volume: 10038,
  invalid_price: 10015,
  invalid_stops: 10016,
  invalid_expiration: 10022,
  market_closed: 10018,
  trade_disabled: 10017,
  no_money: 10019,
  off_quotes: 10021,
  timeout: 10012,
};

export function renderServer(definition: ServerDefinition) {
  return {
    name: definition.name,
    platform: definition.platform,
    broker: definition.broker,
    symbol_suffix: definition.symbolSuffix,
    margin_mode: definition.defaultMarginMode,
    symbols: [...definition.symbols.values()].map((spec) => spec.name),
  };
}

export function mt4Result(outcome: TradeOutcome) {
  return {
    error: outcome.ok ? 0 : (outcome.nativeCode ?? mt4Codes[outcome.error ?? 'rejected']),
    description: outcome.message,
    ticket: outcome.order,
    price: outcome.price,
    bid: outcome.bid,
    ask: outcome.ask,
    lots: outcome.volume,
    new_ticket: outcome.newTicket ?? 0,
  };
}

export function mt5Result(outcome: TradeOutcome, pendingPlaced: boolean) {
  return {
    retcode: outcome.ok ? (pendingPlaced ? 10008 : 10009) : (outcome.nativeCode ?? mt5Codes[outcome.error ?? 'rejected']),
    deal: outcome.deal,
    order: outcome.order,
    volume: outcome.volume,
    price: outcome.price,
    bid: outcome.bid,
    ask: outcome.ask,
    comment: outcome.message,
  };
}

/** Renders open orders as a terminal lists them: valued at the current prices of `broker`'s feed. */
export function renderers(broker: Broker, account: AccountState) {
  const mt4Order = (item: Position | PendingOrder) => {
    const position = 'priceOpen' in item;
    const valued = position ? broker.market.valuePosition(account, item) : undefined;
    return {
      ticket: item.ticket,
      symbol: item.symbol,
      cmd: item.type,
      lots: item.volume,
      open_price: position ? item.priceOpen : item.price,
      stoploss: item.sl,
      takeprofit: item.tp,
      magic: item.magic,
      comment: item.comment,
      expiration: position ? 0 : Math.floor(item.expirationMs / 1000),
      open_time: Math.floor((position ? item.openedAtMs : item.placedAtMs) / 1000),
      close_price: valued ? valued.currentPrice : broker.market.triggerPrice(account, item as PendingOrder),
      profit: valued?.profit ?? 0,
      swap: valued?.swap ?? 0,
    };
  };
  const mt5Position = (position: Position) => {
    const valued = broker.market.valuePosition(account, position);
    return {
      ticket: position.ticket,
      symbol: position.symbol,
      type: position.type,
      volume: position.volume,
      price_open: position.priceOpen,
      sl: position.sl,
      tp: position.tp,
      magic: position.magic,
      comment: position.comment,
      time: Math.floor(position.openedAtMs / 1000),
      price_current: valued.currentPrice,
      profit: valued.profit,
      swap: valued.swap,
    };
  };
  const mt5Order = (order: PendingOrder) => ({
    ticket: order.ticket,
    symbol: order.symbol,
    type: order.type,
    volume_current: order.volume,
    price_open: order.price,
    price_stoplimit: order.stopLimitPrice,
    sl: order.sl,
    tp: order.tp,
    magic: order.magic,
    comment: order.comment,
    expiration: Math.floor(order.expirationMs / 1000),
    price_current: broker.market.triggerPrice(account, order),
    time_setup: Math.floor(order.placedAtMs / 1000),
  });
  return { mt4Order, mt5Position, mt5Order };
}

export function renderRecord(record: RequestRecord, account: AccountState) {
  const rendered: Record<string, unknown> = {
    client_id: record.clientId,
    state: record.state,
    action: record.action,
    symbol: record.symbol,
    ticket: record.ticket,
    type: record.type,
    volume: record.volume,
    kind: record.kind,
  };
  if (record.outcome) {
    if (account.record.platform === 'mt4') rendered.mt4 = mt4Result(record.outcome);
    else rendered.mt5 = mt5Result(record.outcome, record.action === 'open' && record.kind === 'pending');
  }
  return rendered;
}
