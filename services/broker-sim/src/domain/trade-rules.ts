import { isVolumeOnStep } from '@mtx/shared/trading';
import { findSymbol, type SymbolSpec } from './catalog';
import type { PriceFeed, Quote } from './prices';
import {
  rolloverDay,
  roundMoney,
  type AccountState,
  type Effect,
  type OperationResult,
  type Position,
  type Side,
  type TradeError,
  type TradeOutcome,
} from './account-state';

/** The checks and the money arithmetic a trade server applies to every operation. */

export function roundPrice(value: number, spec: SymbolSpec): number {
  return Number(value.toFixed(spec.instrument.digits));
}

export function failure(error: TradeError, message: string, quote: Quote = { bid: 0, ask: 0 }, volume = 0): TradeOutcome {
  return { ok: false, error, message, order: 0, deal: 0, position: 0, price: 0, bid: quote.bid, ask: quote.ask, volume };
}

export function result(outcome: TradeOutcome, effects: Effect[] = []): OperationResult {
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

export function specOf(account: AccountState, symbol: string): SymbolSpec {
  const spec = findSymbol(account.server, symbol);
  if (!spec) throw new Error(`symbol ${symbol} vanished from ${account.server.name}`);
  return spec;
}

/** Swap per lot per rollover for a side of the symbol. */
export function swapRate(spec: SymbolSpec, type: Side): number {
  return type === 0 ? spec.instrument.swapLongPerLot : spec.instrument.swapShortPerLot;
}

/** Swap a position (or `volume` of it) accrued at the rollovers since it opened. */
export function swapFor(
  spec: SymbolSpec,
  position: Pick<Position, 'type' | 'volume' | 'openedAtMs'>,
  nowMs: number,
  volume = position.volume,
): number {
  const days = Math.max(0, rolloverDay(nowMs) - rolloverDay(position.openedAtMs));
  return roundMoney(swapRate(spec, position.type) * volume * days);
}

/** The price a position would close at now: bid for a buy, ask for a sell. */
export function closePriceOf(quote: Quote, type: Side): number {
  return type === 0 ? quote.bid : quote.ask;
}

export interface AccountFigures {
  balance: number;
  /** Floating profit of the open positions at current prices, accrued swap included. */
  profit: number;
  equity: number;
  margin: number;
  freeMargin: number;
  /** Equity over margin in percent; 0 when no margin is used, as MT terminals show it. */
  marginLevel: number;
}

/** Balance, floating profit, used margin and free margin at current prices, from the per-symbol exposure. */
export function accountFigures(account: AccountState, prices: PriceFeed, nowMs: number): AccountFigures {
  let floating = 0;
  let margin = 0;
  const today = rolloverDay(nowMs);
  for (const [key, exposure] of account.exposure) {
    const separator = key.lastIndexOf('|');
    const spec = specOf(account, key.slice(0, separator));
    const type = Number(key.slice(separator + 1)) as Side;
    const quote = prices.quote(spec);
    const closePrice = type === 0 ? quote.bid : quote.ask;
    const difference = (closePrice * exposure.volume - exposure.value) * (type === 0 ? 1 : -1);
    const quoteCurrencyProfit = difference * spec.instrument.contractSize;
    floating += spec.instrument.quoteIsAccountCurrency ? quoteCurrencyProfit : quoteCurrencyProfit / closePrice;
    floating += swapRate(spec, type) * Math.max(0, exposure.volume * today - exposure.openDaysVolume);
    const notional = spec.instrument.contractSize * (spec.instrument.baseIsAccountCurrency ? exposure.volume : exposure.value);
    margin += notional / account.record.leverage;
  }
  const equity = roundMoney(account.balance + floating);
  const usedMargin = roundMoney(margin);
  return {
    balance: account.balance,
    profit: roundMoney(floating),
    equity,
    margin: usedMargin,
    freeMargin: roundMoney(equity - usedMargin),
    marginLevel: usedMargin > 0 ? roundMoney((equity / usedMargin) * 100) : 0,
  };
}

export function checkVolume(spec: SymbolSpec, volume: number): string | undefined {
  if (!Number.isFinite(volume) || volume <= 0) return `volume ${volume} must be greater than 0`;
  if (volume < spec.volumeMin - 1e-9) return `volume ${volume} is below the minimum ${spec.volumeMin} for ${spec.name}`;
  if (volume > spec.volumeMax + 1e-9) return `volume ${volume} is above the maximum ${spec.volumeMax} for ${spec.name}`;
  if (!isVolumeOnStep(volume, spec.volumeStep)) return `volume ${volume} is not a multiple of the step ${spec.volumeStep} for ${spec.name}`;
  return undefined;
}

/** Stop loss and take profit must keep the stops level from the price the position would close at. */
export function checkStops(spec: SymbolSpec, buy: boolean, reference: number, sl: number, tp: number): string | undefined {
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

export function checkPendingPrice(spec: SymbolSpec, type: number, price: number, stopLimitPrice: number, quote: Quote): string | undefined {
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

export function netPosition(account: AccountState, symbol: string): Position | undefined {
  for (const position of account.positions.values()) if (position.symbol === symbol) return position;
  return undefined;
}

/** A position valued now, as a terminal lists it: the price it would close at, its floating profit and accrued swap. */
export function valuePosition(
  account: AccountState,
  position: Position,
  prices: PriceFeed,
  nowMs: number,
): { currentPrice: number; profit: number; swap: number } {
  const spec = specOf(account, position.symbol);
  const currentPrice = closePriceOf(prices.quote(spec), position.type);
  return {
    currentPrice,
    profit: profitFor(spec, position.type, position.volume, position.priceOpen, currentPrice),
    swap: swapFor(spec, position, nowMs),
  };
}

/** The price a pending order is compared with now: the ask for buy types, the bid for sell types. */
export function triggerPriceOf(account: AccountState, order: { symbol: string; type: number }, prices: PriceFeed): number {
  const quote = prices.quote(specOf(account, order.symbol));
  return order.type % 2 === 0 ? quote.ask : quote.bid;
}
