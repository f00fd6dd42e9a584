import type { OrderLegMessage } from '@mtx/shared/connector/messages';
import { retcode } from '@mtx/shared/trading';
import { clientTag, tagOfComment } from './bridge/client-tag';
import { decodeList } from './bridge/lists';
import { TerminalAnswerError, type TerminalHandle } from './terminal-access';
import { decimalField, integerField, requestArguments, textField } from './terminal-fields';

/**
 * What a platform (MT4, MT5) must provide to the connector runtime, over the terminal bridge
 * (docs/terminal-bridge.md, "Commands"). Results are already expressed as MT5 retcodes; the runtime turns them
 * into statuses, applies selectors, caps, claims and deadlines.
 */

/** An open position or pending order, normalised across platforms. */
export interface OpenItem {
  ticket: number;
  symbol: string;
  /** ORDER_TYPE_* number: 0 buy, 1 sell, 2..7 pending types. */
  type: number;
  kind: 'position' | 'pending';
  volume: number;
  magic: number;
  /** Open price of a position; the order price of a pending order. */
  openPrice: number;
  /** The price it would close at now (a position), or the price it triggers on (a pending order). */
  currentPrice: number;
  stopLoss: number;
  takeProfit: number;
  /** Floating profit in the account currency, without swap; 0 for a pending order. */
  profit: number;
  /** Swap accrued since it opened; 0 for a pending order. */
  swap: number;
  comment: string;
  /** When the position opened or the order was placed (unix ms; the terminal reports server-time seconds). */
  openedAtMs: number;
}

export interface TradeOutcome {
  retcode: number;
  order: number;
  deal: number;
  price: number;
  bid: number;
  ask: number;
  volume: number;
  message: string;
}

export interface BrokerRecord {
  clientId: string;
  state: 'processing' | 'done';
  action: 'open' | 'close' | 'delete';
  symbol: string;
  ticket: number;
  type: number;
  volume: number;
  kind: 'position' | 'pending' | '';
  outcome?: TradeOutcome;
}

export interface AccountInfo {
  login: string;
  server: string;
  currency: string;
  leverage: number;
  balance: number;
  equity: number;
  margin: number;
  freeMargin: number;
  marginLevel: number;
  profit: number;
  serverTimeMs: number;
  marginMode: string;
  tradeAllowed: boolean;
}

export interface SymbolDetails {
  name: string;
  volumeMin: number;
  volumeMax: number;
  volumeStep: number;
}

export interface PlaceOptions {
  callDeadlineMs: number;
  /** The requester's deadline: the trade is not started after it (0: none). */
  fenceUnixMs: number;
  defaultSlippagePoints: number;
}

export interface CloseOptions {
  clientId: string;
  /** 0: the whole position. */
  volume: number;
  slippagePoints: number | undefined;
  callDeadlineMs: number;
  /** The requester's deadline: the close is not started after it (0: none). */
  fenceUnixMs: number;
}

/** The new values of a modify; undefined: left as it is (the EA keeps the current value of an absent argument). */
export interface ModifyValues {
  stopLoss?: number;
  takeProfit?: number;
  /** Pending orders only. */
  price?: number;
  /** Pending orders only; unix ms. */
  expirationUnixMs?: number;
}

export interface ModifyOptions {
  callDeadlineMs: number;
  /** The requester's deadline: the modify is not started after it (0: none). */
  fenceUnixMs: number;
}

export interface PlatformAdapter {
  readonly platform: 'mt4' | 'mt5';
  /** Sends one order (`send`), its client id's tag in the comment so reconciliation can find it. */
  place(terminal: TerminalHandle, leg: OrderLegMessage, options: PlaceOptions): Promise<TradeOutcome>;
  listOpen(terminal: TerminalHandle, kind: 'position' | 'pending' | 'any', deadlineMs: number): Promise<OpenItem[]>;
  getTicket(terminal: TerminalHandle, ticket: number, deadlineMs: number): Promise<OpenItem | undefined>;
  /** Closes a position (volume 0: whole) or deletes a pending order. */
  close(terminal: TerminalHandle, item: OpenItem, options: CloseOptions): Promise<TradeOutcome>;
  /** Changes a position's stops or a pending order's price, stops and expiration (`modify`). */
  modify(terminal: TerminalHandle, item: OpenItem, values: ModifyValues, options: ModifyOptions): Promise<TradeOutcome>;
  /** What the trade server holds of these client ids (by their tags), for reconciliation and duplicates. */
  lookup(terminal: TerminalHandle, clientIds: string[], deadlineMs: number): Promise<BrokerRecord[]>;
  /**
   * The closes and deletes of a close request whose answer was lost, known only by its client-id prefix: each
   * ticket the history shows closed since `fromUtcMs` that the platform can attribute to `<prefix>t<ticket>`
   * (docs/terminal-bridge.md, "Closes by client-id prefix", says how far each platform can).
   */
  lookupCloses(terminal: TerminalHandle, prefix: string, fromUtcMs: number, deadlineMs: number): Promise<BrokerRecord[]>;
  /** The symbol's details, or undefined when the trade server does not list it. */
  symbol(terminal: TerminalHandle, name: string, deadlineMs: number): Promise<SymbolDetails | undefined>;
  /** The account's figures now (`account`); also the liveness check. */
  accountInfo(terminal: TerminalHandle, deadlineMs: number): Promise<AccountInfo>;
}

/** How far back reconciliation searches the terminal's history for a client id's deals and orders. */
export const lookupHistoryDays = 7;

/** A close's client id is `<base>-t<ticket>` (the runtime's closing); anything else is a leg's. */
const closeClientId = /-t([0-9]{1,16})$/;

export function closedTicketOf(clientId: string): number | undefined {
  const match = closeClientId.exec(clientId);
  return match ? Number(match[1]) : undefined;
}

/** An open position or pending order as the EA answers `positions`, `orders` or `ticket`. */
export function openItemOf(terminal: TerminalHandle, fields: Map<string, string>, kind: 'position' | 'pending'): OpenItem {
  return {
    ticket: integerField(fields, 'ticket'),
    symbol: textField(fields, 'symbol'),
    type: integerField(fields, 'type'),
    kind,
    volume: decimalField(fields, 'volume'),
    magic: integerField(fields, 'magic'),
    openPrice: decimalField(fields, 'price_open'),
    currentPrice: decimalField(fields, 'price_current'),
    stopLoss: decimalField(fields, 'sl'),
    takeProfit: decimalField(fields, 'tp'),
    profit: kind === 'position' ? decimalField(fields, 'profit') : 0,
    swap: kind === 'position' ? decimalField(fields, 'swap') : 0,
    comment: textField(fields, 'comment'),
    openedAtMs: terminal.utcMsOf(integerField(fields, kind === 'position' ? 'time' : 'time_setup')),
  };
}

/** A trade the terminal reports: its ticket, symbol, type, volume, price and the order it belongs to. */
interface ReportedTrade {
  ticket: number;
  symbol: string;
  type: number;
  volume: number;
  price: number;
  order: number;
}

/**
 * A `find` match: an open item, a deal or a history order whose comment carries a client id's tag. MT5 deals
 * also carry the order and position they belong to and their entry (0 in, 1 out).
 */
export interface FindMatch extends ReportedTrade {
  clientId: string;
  where: 'position' | 'order' | 'deal' | 'history_order';
  position: number;
  entry: number;
}

/** What both platforms ask the same way: account figures, symbol details, the search by client-id tag. */
export abstract class BridgeAdapterBase {
  abstract readonly platform: 'mt4' | 'mt5';

  async symbol(terminal: TerminalHandle, name: string, deadlineMs: number): Promise<SymbolDetails | undefined> {
    try {
      const fields = await terminal.request('symbol', [['symbol', name]], deadlineMs);
      return {
        name: textField(fields, 'symbol') || name,
        volumeMin: decimalField(fields, 'volume_min'),
        volumeMax: decimalField(fields, 'volume_max'),
        volumeStep: decimalField(fields, 'volume_step'),
      };
    } catch (error) {
      // The EA answers a symbol its server does not list with bad_request.
      if (error instanceof TerminalAnswerError && error.error === 'bad_request') return undefined;
      throw error;
    }
  }

  async accountInfo(terminal: TerminalHandle, deadlineMs: number): Promise<AccountInfo> {
    const fields = await terminal.request('account', [], deadlineMs);
    return {
      login: textField(fields, 'login'),
      server: textField(fields, 'server'),
      currency: textField(fields, 'currency'),
      leverage: integerField(fields, 'leverage'),
      balance: decimalField(fields, 'balance'),
      equity: decimalField(fields, 'equity'),
      margin: decimalField(fields, 'margin'),
      freeMargin: decimalField(fields, 'free_margin'),
      marginLevel: decimalField(fields, 'margin_level'),
      profit: decimalField(fields, 'profit'),
      serverTimeMs: terminal.utcMsOf(integerField(fields, 'server_time')),
      marginMode: textField(fields, 'margin_mode'),
      tradeAllowed: textField(fields, 'trade_allowed') === '1',
    };
  }

  /** Open items and history carrying these client ids' tags (one `find`, up to 50 tags a request). */
  protected async find(terminal: TerminalHandle, clientIds: string[], deadlineMs: number): Promise<FindMatch[]> {
    const byTag = new Map(clientIds.map((clientId) => [clientTag(clientId), clientId]));
    const tags = [...byTag.keys()];
    const matches: FindMatch[] = [];
    const from = terminal.serverTimeSeconds() - lookupHistoryDays * 86_400;
    for (let start = 0; start < tags.length; start += 50) {
      const fields = await terminal.request('find', requestArguments({ tags: tags.slice(start, start + 50).join(','), from }), deadlineMs);
      for (const item of decodeList(fields, 'matches')) {
        const tag = textField(item, 'tag') || tagOfComment(textField(item, 'comment'));
        const clientId = tag ? byTag.get(tag) : undefined;
        if (!clientId) continue;
        matches.push({
          clientId,
          where: textField(item, 'where') as FindMatch['where'],
          ticket: integerField(item, 'ticket'),
          symbol: textField(item, 'symbol'),
          type: integerField(item, 'type'),
          volume: decimalField(item, 'volume'),
          price: decimalField(item, 'price'),
          order: integerField(item, 'order'),
          position: integerField(item, 'position'),
          entry: integerField(item, 'entry'),
        });
      }
    }
    return matches;
  }

  /** The account's history orders closed or cancelled since the lookback, paged (at most `pages` × 500). */
  protected historyOrders(terminal: TerminalHandle, deadlineMs: number, pages = 4): Promise<Array<Map<string, string>>> {
    return this.history(terminal, 'orders', terminal.serverTimeSeconds() - lookupHistoryDays * 86_400, deadlineMs, pages);
  }

  /**
   * The account's history deals or orders from `fromSeconds` (server time) until now, paged (at most `pages` ×
   * 500). A fixed `to` a day ahead keeps the pages stable while the account trades (docs/terminal-bridge.md,
   * "history").
   */
  protected async history(
    terminal: TerminalHandle,
    kind: 'deals' | 'orders',
    fromSeconds: number,
    deadlineMs: number,
    pages = 4,
  ): Promise<Array<Map<string, string>>> {
    const range = { kind, from: fromSeconds, to: terminal.serverTimeSeconds() + 86_400 };
    const items: Array<Map<string, string>> = [];
    for (let page = 0; page < pages; page++) {
      const fields = await terminal.request('history', requestArguments({ ...range, offset: items.length, limit: 500 }), deadlineMs);
      items.push(...decodeList(fields, kind));
      if (textField(fields, 'more') !== '1') break;
    }
    return items;
  }
}

/**
 * A close or delete found in the trade server's history, as a record of the close id `<prefix>t<ticket>`: its
 * type is the closed position's (0 buy, 1 sell) or the deleted order's (2..7), its price the close price
 * (volume-weighted over the closing deals; 0 for a delete).
 */
export interface FoundClose extends ReportedTrade {
  deal: number;
}

export function foundCloseRecord(clientId: string, found: FoundClose): BrokerRecord {
  const position = found.type <= 1;
  return {
    clientId,
    state: 'done',
    action: position ? 'close' : 'delete',
    symbol: found.symbol,
    ticket: found.ticket,
    type: found.type,
    volume: found.volume,
    kind: position ? 'position' : 'pending',
    outcome: {
      retcode: retcode.DONE,
      order: found.order,
      deal: found.deal,
      price: position ? found.price : 0,
      bid: 0,
      ask: 0,
      volume: found.volume,
      message: '',
    },
  };
}

/** Adds a closing deal (or MT4 close) to what is found of its ticket: volumes summed, prices volume-weighted. */
export function addClose(found: Map<number, FoundClose>, close: FoundClose): void {
  const earlier = found.get(close.ticket);
  if (!earlier) {
    found.set(close.ticket, { ...close });
    return;
  }
  const volume = earlier.volume + close.volume;
  earlier.price = volume > 0 ? (earlier.price * earlier.volume + close.price * close.volume) / volume : close.price;
  earlier.volume = Math.round(volume * 1e8) / 1e8;
  earlier.order = close.order;
  earlier.deal = close.deal;
}
