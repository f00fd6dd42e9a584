import type { Clock } from '@mtx/shared/clock';
import {
  accountFigures,
  triggerPriceOf,
  valuePosition,
  type AccountFigures,
  type AccountState,
  type PendingOrder,
  type Position,
} from '../domain/engine';
import type { PriceFeed } from '../domain/prices';

/**
 * An account seen at the market's current prices and the server's clock, as a terminal reads it: its figures,
 * each position's close price, floating profit and accrued swap, each pending order's trigger price.
 */
export class MarketView {
  constructor(
    private readonly prices: PriceFeed,
    private readonly clock: Clock,
  ) {}

  /** The server's clock (what a terminal reads as TimeCurrent). */
  serverTimeMs(): number {
    return this.clock.now().getTime();
  }

  figures(account: AccountState): AccountFigures {
    return accountFigures(account, this.prices, this.serverTimeMs());
  }

  valuePosition(account: AccountState, position: Position): { currentPrice: number; profit: number; swap: number } {
    return valuePosition(account, position, this.prices, this.serverTimeMs());
  }

  triggerPrice(account: AccountState, order: PendingOrder): number {
    return triggerPriceOf(account, order, this.prices);
  }
}
