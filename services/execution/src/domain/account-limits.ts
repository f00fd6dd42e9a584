import { isBuyOperation, type Operation, retcode } from '@mtx/shared/trading';
import type { AccountSettings } from './account-settings';

/**
 * The account limits a leg must keep before it is sent (docs/architecture.md, "Pre-trade rules"), each refusal
 * with the MT5 retcode that fits it and a message naming the setting. They limit opening risk: closing is never
 * refused by them. Pure.
 */

export type Verdict = { ok: true } | { ok: false; retcode: number; message: string };

const admitted: Verdict = { ok: true };

export function tradingEnabledVerdict(settings: AccountSettings, accountId: string): Verdict {
  if (settings.trading_enabled) return admitted;
  return {
    ok: false,
    retcode: retcode.TRADE_DISABLED,
    message: `not sent: trading_enabled is false in the settings of account ${accountId}; closing and modifying stay allowed`,
  };
}

/** Allowed when the list is unset, or names the broker symbol or the name the leg gave. */
export function allowedSymbolVerdict(settings: AccountSettings, requested: string, brokerSymbol: string): Verdict {
  const list = settings.allowed_symbols;
  if (!list || list.includes(brokerSymbol) || list.includes(requested)) return admitted;
  const shown = list.length > 10 ? `${list.slice(0, 10).join(', ')}, …` : list.join(', ');
  return {
    ok: false,
    retcode: retcode.TRADE_DISABLED,
    message: `not sent: ${brokerSymbol} is not in allowed_symbols of this account (${shown || 'none'})`,
  };
}

/** A volume given by the leg over max_volume_per_order is refused (a sized volume is held to it instead). */
export function orderVolumeVerdict(settings: AccountSettings, volume: number): Verdict {
  const limit = settings.max_volume_per_order;
  if (limit === undefined || volume <= limit + 1e-9) return admitted;
  return {
    ok: false,
    retcode: retcode.LIMIT_VOLUME,
    message: `not sent: volume ${volume} is over max_volume_per_order ${limit} of this account`,
  };
}

export interface OpenPositionFigure {
  symbol: string;
  /** 0 buy, 1 sell. */
  type: number;
  volume: number;
}

function round8(value: number): number {
  return Number(value.toFixed(8));
}

/**
 * max_open_positions and max_total_volume over the account's open positions and the batch's legs before this
 * one, in leg order. On a hedging account every leg opens a position of its own; on a netting account a leg
 * adds to, reduces or reverses the one position of its symbol. A pending order counts as the position it would
 * open, so limits cannot be stepped round by placing orders that fill later.
 */
export class ExposureLimits {
  /** Netting: signed net volume per symbol (buy positive). Hedging: one entry per position. */
  private readonly net = new Map<string, number>();
  private positions: number;
  private totalVolume: number;

  constructor(
    private readonly settings: AccountSettings,
    private readonly netting: boolean,
    open: OpenPositionFigure[],
  ) {
    if (netting) {
      for (const position of open) {
        const signed = position.type === 0 ? position.volume : -position.volume;
        this.net.set(position.symbol, round8((this.net.get(position.symbol) ?? 0) + signed));
      }
      this.positions = [...this.net.values()].filter((volume) => volume !== 0).length;
      this.totalVolume = round8([...this.net.values()].reduce((sum, volume) => sum + Math.abs(volume), 0));
    } else {
      this.positions = open.length;
      this.totalVolume = round8(open.reduce((sum, position) => sum + position.volume, 0));
    }
  }

  /** Whether any limit here applies, i.e. whether the open positions must be read at all. */
  static needed(settings: AccountSettings): boolean {
    return settings.max_open_positions !== undefined || settings.max_total_volume !== undefined;
  }

  /** Admits the leg (and counts it) or says which limit it would break. */
  admit(leg: { symbol: string; operation: Operation; volume: number }): Verdict {
    let positions: number;
    let totalVolume: number;
    let netAfter = 0;
    if (this.netting) {
      const before = this.net.get(leg.symbol) ?? 0;
      netAfter = round8(before + (isBuyOperation(leg.operation) ? leg.volume : -leg.volume));
      positions = this.positions + (before === 0 && netAfter !== 0 ? 1 : 0) - (before !== 0 && netAfter === 0 ? 1 : 0);
      totalVolume = round8(this.totalVolume - Math.abs(before) + Math.abs(netAfter));
    } else {
      positions = this.positions + 1;
      totalVolume = round8(this.totalVolume + leg.volume);
    }
    const { max_open_positions: positionsMax, max_total_volume: volumeMax } = this.settings;
    // A leg that does not add to a limit (a netting leg reducing its position) is never refused by it.
    if (positionsMax !== undefined && positions > positionsMax && positions > this.positions)
      return {
        ok: false,
        retcode: retcode.LIMIT_POSITIONS,
        message: `not sent: it would make ${positions} open positions, over max_open_positions ${positionsMax} of this account (${this.positions} open, the batch's earlier legs included)`,
      };
    if (volumeMax !== undefined && totalVolume > volumeMax + 1e-9 && totalVolume > this.totalVolume)
      return {
        ok: false,
        retcode: retcode.LIMIT_VOLUME,
        message: `not sent: it would make ${totalVolume} lots open, over max_total_volume ${volumeMax} of this account (${this.totalVolume} open, the batch's earlier legs included)`,
      };
    this.positions = positions;
    this.totalVolume = totalVolume;
    if (this.netting) this.net.set(leg.symbol, netAfter);
    return admitted;
  }
}
