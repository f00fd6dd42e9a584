import { instruments, type SymbolSpec } from './catalog';

export interface Quote {
  bid: number;
  ask: number;
}

function roundTo(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/**
 * One market for every simulated broker: each instrument has one bid that moves by a random walk on every
 * tick, and each broker's symbol quotes it with its own spread. Tests pin a price (and freeze the walk) so
 * pending-order prices and stops can be chosen exactly.
 */
export class PriceFeed {
  private readonly bids = new Map<string, number>();
  private readonly frozen = new Set<string>();
  private frozenAll = false;

  constructor(private readonly random: () => number = Math.random) {
    for (const instrument of Object.values(instruments)) this.bids.set(instrument.base, instrument.initialBid);
  }

  bidOf(base: string): number {
    const bid = this.bids.get(base);
    if (bid === undefined) throw new Error(`no instrument ${base}`);
    return bid;
  }

  quote(spec: SymbolSpec): Quote {
    const bid = this.bidOf(spec.instrument.base);
    return { bid, ask: roundTo(bid + spec.spreadPoints * spec.point, spec.instrument.digits) };
  }

  /** Moves every instrument that is not frozen; returns the bases that moved. */
  tick(): string[] {
    if (this.frozenAll) return [];
    const moved: string[] = [];
    for (const instrument of Object.values(instruments)) {
      if (this.frozen.has(instrument.base)) continue;
      const bid = this.bidOf(instrument.base);
      const change = bid * instrument.volatility * (this.random() * 2 - 1);
      const next = roundTo(Math.max(bid + change, 10 ** -instrument.digits), instrument.digits);
      if (next !== bid) {
        this.bids.set(instrument.base, next);
        moved.push(instrument.base);
      }
    }
    return moved;
  }

  /** Sets an instrument's bid; `frozen` stops (true) or resumes (false) its random walk. */
  set(base: string, bid: number | undefined, frozen: boolean | undefined): void {
    const instrument = instruments[base];
    if (!instrument) throw new Error(`no instrument ${base}`);
    if (bid !== undefined) this.bids.set(base, roundTo(bid, instrument.digits));
    if (frozen === true) this.frozen.add(base);
    if (frozen === false) this.frozen.delete(base);
  }

  freezeAll(frozen: boolean): void {
    this.frozenAll = frozen;
  }

  snapshot(): Array<{ symbol: string; bid: number; frozen: boolean }> {
    return [...this.bids.entries()].map(([base, bid]) => ({ symbol: base, bid, frozen: this.frozenAll || this.frozen.has(base) }));
  }
}
