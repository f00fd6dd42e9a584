import type { ServerDefinition } from '../domain/catalog';
import type { TradeError, TradeOutcome } from '../domain/engine';

/** How broker-sim's answers look to a terminal: each platform's result codes, and the servers' descriptions. */

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
