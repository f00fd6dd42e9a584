import { findSymbol } from './catalog';
import type { AccountState, Effect, EngineContext, PendingOrder, Position } from './engine';
import { BrokerError } from './errors';
import type { PriceFeed } from './prices';

/**
 * Positions and pending orders placed on an account directly (control API), as if the account had them before
 * the test or demo began: no trade request, no client id. Pure, like the engine: each returns the effects to
 * journal and apply.
 */

export interface SeedPositionInput {
  symbol: string;
  type: 'buy' | 'sell';
  volume: number;
  price?: number;
  sl?: number;
  tp?: number;
  magic?: number;
  comment?: string;
  /** Opened this many days ago, so it has been held over that many rollovers and accrued their swap. */
  held_days?: number;
}

export interface SeedOrderInput {
  symbol: string;
  type: 'buy_limit' | 'sell_limit' | 'buy_stop' | 'sell_stop' | 'buy_stop_limit' | 'sell_stop_limit';
  volume: number;
  price: number;
  stop_limit_price?: number;
  magic?: number;
  comment?: string;
}

const pendingTypes = { buy_limit: 2, sell_limit: 3, buy_stop: 4, sell_stop: 5, buy_stop_limit: 6, sell_stop_limit: 7 } as const;

export function seedPositionEffects(
  account: AccountState,
  input: SeedPositionInput,
  context: EngineContext,
  prices: PriceFeed,
): { effects: Effect[]; position: Position } {
  const spec = findSymbol(account.server, input.symbol);
  if (!spec) throw new BrokerError('invalid', `symbol ${input.symbol} does not exist on ${account.server.name}`);
  if (!(input.volume > 0)) throw new BrokerError('invalid', 'volume must be greater than 0');
  const quote = prices.quote(spec);
  const type = input.type === 'buy' ? 0 : 1;
  const ticket = context.tickets.next();
  const price = input.price ?? (type === 0 ? quote.ask : quote.bid);
  const position: Position = {
    ticket,
    symbol: spec.name,
    type,
    volume: input.volume,
    priceOpen: price,
    sl: input.sl ?? 0,
    tp: input.tp ?? 0,
    magic: input.magic ?? 0,
    comment: input.comment ?? '',
    openedAtMs: context.nowMs - (input.held_days ?? 0) * 86_400_000,
    clientId: '',
  };
  // MT4 has one ticket per order: its deal is the position's ticket.
  const dealTicket = account.record.platform === 'mt4' ? ticket : context.tickets.next();
  return {
    position,
    effects: [
      { t: 'position_set', position },
      {
        t: 'deal',
        deal: {
          ticket: dealTicket,
          order: ticket,
          position: ticket,
          symbol: spec.name,
          type,
          entry: 'in',
          volume: input.volume,
          price,
          profit: 0,
          timeMs: context.nowMs,
          clientId: '',
          reason: 'seed',
        },
      },
    ],
  };
}

export function seedOrderEffects(
  account: AccountState,
  input: SeedOrderInput,
  context: EngineContext,
): { effects: Effect[]; order: PendingOrder } {
  const spec = findSymbol(account.server, input.symbol);
  if (!spec) throw new BrokerError('invalid', `symbol ${input.symbol} does not exist on ${account.server.name}`);
  const type = pendingTypes[input.type];
  if (type === undefined) throw new BrokerError('invalid', `unknown order type ${input.type}`);
  if (account.record.platform === 'mt4' && type > 5) throw new BrokerError('invalid', 'MT4 has no stop-limit orders');
  if (!(input.volume > 0) || !(input.price > 0)) throw new BrokerError('invalid', 'volume and price must be greater than 0');
  const order: PendingOrder = {
    ticket: context.tickets.next(),
    symbol: spec.name,
    type,
    volume: input.volume,
    price: input.price,
    stopLimitPrice: input.stop_limit_price ?? 0,
    sl: 0,
    tp: 0,
    magic: input.magic ?? 0,
    comment: input.comment ?? '',
    expirationMs: 0,
    placedAtMs: context.nowMs,
    clientId: '',
  };
  return { order, effects: [{ t: 'order_set', order }] };
}
