import { isBuyOperation, isPendingOperation, isStopLimitOperation, type Operation, retcode, roundVolumeDown } from '@mtx/shared/trading';

/**
 * A leg's volume computed from the account instead of given (docs/architecture.md, "Pre-trade rules"): lots per
 * 1,000 units of equity or balance, or the volume whose loss at the stop loss is a share of equity. The result is
 * rounded down to the symbol's step and held to its maximum and to the account's max_volume_per_order; below the
 * symbol's minimum the leg is refused. Pure.
 */

export type SizingMode = 'equity' | 'balance' | 'risk';

export interface SizingInput {
  mode: SizingMode;
  lots_per_1000?: number;
  percent?: number;
}

export interface SymbolFigures {
  name: string;
  tick_size: number;
  tick_value: number;
  volume_min: number;
  volume_max: number;
  volume_step: number;
  bid: number;
  ask: number;
}

export interface AccountBasis {
  equity: number;
  balance: number;
}

/** What a sized leg reports: the mode, the equity or balance it used, and the volume before rounding and limits. */
export interface LegSizing {
  mode: SizingMode;
  equity?: number;
  balance?: number;
  computed_volume: number;
}

export type SizingOutcome =
  | { ok: true; volume: number; sizing: LegSizing }
  | { ok: false; retcode: number; message: string; sizing?: LegSizing };

/** Lots are reported to 8 decimals, as the bridge carries them. */
function lots(value: number): number {
  return Number(value.toFixed(8));
}

/** The price a risk-sized order would open at: its limit price, its order price, or the current ask (buy) or bid (sell). */
export function entryPrice(
  leg: { operation: Operation; price?: number; stop_limit_price?: number },
  symbol: Pick<SymbolFigures, 'bid' | 'ask'>,
): number {
  if (isStopLimitOperation(leg.operation) && leg.stop_limit_price) return leg.stop_limit_price;
  if (isPendingOperation(leg.operation) && leg.price) return leg.price;
  return isBuyOperation(leg.operation) ? symbol.ask : symbol.bid;
}

export function sizeLeg(
  sizing: SizingInput,
  leg: { operation: Operation; price?: number; stop_limit_price?: number; stop_loss?: number },
  account: AccountBasis,
  symbol: SymbolFigures,
  maxVolumePerOrder: number | undefined,
): SizingOutcome {
  let computed: number;
  let report: LegSizing;
  if (sizing.mode === 'equity' || sizing.mode === 'balance') {
    const basis = sizing.mode === 'equity' ? account.equity : account.balance;
    computed = lots(((sizing.lots_per_1000 ?? 0) * basis) / 1000);
    report = { mode: sizing.mode, [sizing.mode]: basis, computed_volume: computed };
  } else {
    const entry = entryPrice(leg, symbol);
    const stopLoss = leg.stop_loss ?? 0;
    const buy = isBuyOperation(leg.operation);
    if (!(entry > 0) || stopLoss <= 0 || (buy ? stopLoss >= entry : stopLoss <= entry))
      return {
        ok: false,
        retcode: retcode.INVALID_STOPS,
        message: `not sent: risk sizing needs a stop_loss ${buy ? 'below' : 'above'} the entry price ${entry} of this ${leg.operation} on ${symbol.name}; it is ${stopLoss}`,
      };
    if (!(symbol.tick_size > 0) || !(symbol.tick_value > 0))
      return {
        ok: false,
        retcode: retcode.INVALID,
        message: `not sent: the terminal reports no tick size or tick value for ${symbol.name}, so the loss at the stop loss cannot be valued`,
      };
    const lossPerLot = (Math.abs(entry - stopLoss) / symbol.tick_size) * symbol.tick_value;
    computed = lots((account.equity * (sizing.percent ?? 0)) / 100 / lossPerLot);
    report = { mode: 'risk', equity: account.equity, computed_volume: computed };
  }
  const step = symbol.volume_step > 0 ? symbol.volume_step : 0.01;
  let volume = roundVolumeDown(computed, step);
  if (symbol.volume_max > 0) volume = Math.min(volume, roundVolumeDown(symbol.volume_max, step));
  if (maxVolumePerOrder !== undefined) volume = Math.min(volume, roundVolumeDown(maxVolumePerOrder, step));
  if (volume <= 0 || volume < symbol.volume_min - step * 1e-6) {
    const limited = maxVolumePerOrder !== undefined && roundVolumeDown(maxVolumePerOrder, step) < symbol.volume_min;
    return {
      ok: false,
      retcode: retcode.INVALID_VOLUME,
      message: `not sent: ${sizing.mode} sizing computed ${computed} lots, ${volume} after rounding down to the step ${step}${limited ? ` and max_volume_per_order ${maxVolumePerOrder}` : ''}, below the minimum ${symbol.volume_min} of ${symbol.name}`,
      sizing: report,
    };
  }
  return { ok: true, volume, sizing: report };
}
