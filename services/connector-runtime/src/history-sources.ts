import type { HistoryDealMessage, HistoryKind, HistoryOrderMessage } from '@mtx/shared/connector/desk-messages';
import { orderTypeName } from '@mtx/shared/trading';
import type { OpenItem } from './adapter';
import type { TerminalHandle } from './terminal-access';
import { decimalField, integerField, textField } from './terminal-fields';

/**
 * How each platform's `history` answer (docs/terminal-bridge.md, "history") becomes the API's deals and orders.
 * MT5 has both lists. MT4 has no deals: its history pool's closed orders are read instead, each market order
 * giving an opening deal (at its open time) and a closing one (at its close time, with the profit, swap and
 * commission), a balance or credit operation one deal; the open positions give their opening deals.
 */

/** A history item with its place in the newest-first order: its time, then `key` (the ticket × 2, +1 for an MT4 close). */
export interface HistoryItem {
  timeMs: number;
  key: number;
  symbol: string;
  deal?: HistoryDealMessage;
  order?: HistoryOrderMessage;
}

export interface HistorySource {
  /** The list the terminal is asked for. */
  command: HistoryKind;
  /**
   * Whether the list is in the items' own time order, so that the newest pages hold the newest items (MT5 deals);
   * any other list is read whole.
   */
  chronological: boolean;
  /** Time (unix ms) a row is listed by: the bound of what the pages read so far cover. */
  rowTimeMs(terminal: TerminalHandle, row: Map<string, string>): number;
  convert(terminal: TerminalHandle, rows: Array<Map<string, string>>): HistoryItem[];
  /** Items the history list does not hold (MT4: the opening deals of positions still open). */
  openItems?: (terminal: TerminalHandle, open: OpenItem[]) => HistoryItem[];
}

/** MT5 ENUM_DEAL_TYPE in lower case, past the two trades. */
const dealTypeNames = [
  'buy',
  'sell',
  'balance',
  'credit',
  'charge',
  'correction',
  'bonus',
  'commission',
  'commission_daily',
  'commission_monthly',
  'commission_agent_daily',
  'commission_agent_monthly',
  'interest',
  'buy_canceled',
  'sell_canceled',
  'dividend',
  'dividend_franked',
  'tax',
];
const dealEntryNames = ['in', 'out', 'inout', 'out_by'];
/** MT5 ENUM_ORDER_STATE in lower case. */
const orderStateNames = [
  'started',
  'placed',
  'canceled',
  'partial',
  'filled',
  'rejected',
  'expired',
  'request_add',
  'request_modify',
  'request_cancel',
];

const nameOf = (names: string[], value: number, prefix: string) => names[value] ?? `${prefix}_${value}`;

/** A server-time millisecond count (MT5 `time_msc`) as unix milliseconds. */
function utcOfServerMs(terminal: TerminalHandle, serverMs: number): number {
  const seconds = Math.floor(serverMs / 1000);
  return terminal.utcMsOf(seconds) + (serverMs - seconds * 1000);
}

function mt5DealTimeMs(terminal: TerminalHandle, row: Map<string, string>): number {
  const msc = integerField(row, 'time_msc');
  return msc > 0 ? utcOfServerMs(terminal, msc) : terminal.utcMsOf(integerField(row, 'time'));
}

const mt5Deals: HistorySource = {
  command: 'deals',
  chronological: true,
  rowTimeMs: mt5DealTimeMs,
  convert: (terminal, rows) =>
    rows.map((row) => {
      const deal: HistoryDealMessage = {
        ticket: integerField(row, 'ticket'),
        order: integerField(row, 'order'),
        position_id: integerField(row, 'position'),
        symbol: textField(row, 'symbol'),
        type: nameOf(dealTypeNames, integerField(row, 'type'), 'type'),
        entry: nameOf(dealEntryNames, integerField(row, 'entry'), 'entry'),
        volume: decimalField(row, 'volume'),
        price: decimalField(row, 'price'),
        profit: decimalField(row, 'profit'),
        swap: decimalField(row, 'swap'),
        commission: decimalField(row, 'commission'),
        magic: integerField(row, 'magic'),
        comment: textField(row, 'comment'),
        time_unix_ms: mt5DealTimeMs(terminal, row),
      };
      return { timeMs: deal.time_unix_ms, key: deal.ticket * 2, symbol: deal.symbol, deal };
    }),
};

const mt5Orders: HistorySource = {
  command: 'orders',
  // Selected by HistorySelect in setup order, while an order's place in the API's order is when it was done.
  chronological: false,
  rowTimeMs: (terminal, row) => terminal.utcMsOf(integerField(row, 'time_done')),
  convert: (terminal, rows) =>
    rows.map((row) => {
      const order: HistoryOrderMessage = {
        ticket: integerField(row, 'ticket'),
        symbol: textField(row, 'symbol'),
        type: orderTypeName(integerField(row, 'type')),
        state: nameOf(orderStateNames, integerField(row, 'state'), 'state'),
        volume_initial: decimalField(row, 'volume_initial'),
        volume_current: decimalField(row, 'volume_current'),
        price_open: decimalField(row, 'price_open'),
        stop_loss: decimalField(row, 'sl'),
        take_profit: decimalField(row, 'tp'),
        time_setup_unix_ms: terminal.utcMsOf(integerField(row, 'time_setup')),
        time_done_unix_ms: terminal.utcMsOf(integerField(row, 'time_done')),
        magic: integerField(row, 'magic'),
        comment: textField(row, 'comment'),
        position_id: integerField(row, 'position'),
      };
      return { timeMs: order.time_done_unix_ms, key: order.ticket * 2, symbol: order.symbol, order };
    }),
};

const mt4Balance = 6;
const mt4Credit = 7;

const mt4CloseTimeMs = (terminal: TerminalHandle, row: Map<string, string>) => terminal.utcMsOf(integerField(row, 'time_close'));

function mt4State(row: Map<string, string>, type: number): string {
  if (type <= 1) return 'filled';
  const expiration = integerField(row, 'expiration');
  return expiration > 0 && integerField(row, 'time_close') >= expiration ? 'expired' : 'canceled';
}

const mt4Orders: HistorySource = {
  command: 'orders',
  // The EA lists the pool by ticket (docs/terminal-bridge.md, "history").
  chronological: false,
  rowTimeMs: mt4CloseTimeMs,
  convert: (terminal, rows) =>
    rows.flatMap((row) => {
      const type = integerField(row, 'type');
      if (type > 5) return [];
      const volume = decimalField(row, 'volume');
      const state = mt4State(row, type);
      const order: HistoryOrderMessage = {
        ticket: integerField(row, 'ticket'),
        symbol: textField(row, 'symbol'),
        type: orderTypeName(type),
        state,
        volume_initial: volume,
        volume_current: state === 'filled' ? 0 : volume,
        price_open: decimalField(row, 'price_open'),
        stop_loss: decimalField(row, 'sl'),
        take_profit: decimalField(row, 'tp'),
        time_setup_unix_ms: terminal.utcMsOf(integerField(row, 'time_open')),
        time_done_unix_ms: mt4CloseTimeMs(terminal, row),
        magic: integerField(row, 'magic'),
        comment: textField(row, 'comment'),
        position_id: type <= 1 ? integerField(row, 'ticket') : 0,
      };
      return [{ timeMs: order.time_done_unix_ms, key: order.ticket * 2, symbol: order.symbol, order }];
    }),
};

function mt4Deal(
  fields: Omit<HistoryDealMessage, 'order' | 'position_id' | 'swap' | 'commission' | 'profit'> &
    Partial<Pick<HistoryDealMessage, 'swap' | 'commission' | 'profit'>>,
  closing: boolean,
): HistoryItem {
  const deal: HistoryDealMessage = {
    profit: 0,
    swap: 0,
    commission: 0,
    ...fields,
    order: fields.ticket,
    position_id: fields.type === 'buy' || fields.type === 'sell' ? fields.ticket : 0,
  };
  return { timeMs: deal.time_unix_ms, key: deal.ticket * 2 + (closing ? 1 : 0), symbol: deal.symbol, deal };
}

const mt4Deals: HistorySource = {
  command: 'orders',
  chronological: false,
  rowTimeMs: mt4CloseTimeMs,
  convert: (terminal, rows) => {
    const items: HistoryItem[] = [];
    const opened = new Set<number>();
    for (const row of rows) {
      const type = integerField(row, 'type');
      const ticket = integerField(row, 'ticket');
      const common = { ticket, symbol: textField(row, 'symbol'), magic: integerField(row, 'magic'), comment: textField(row, 'comment') };
      if (type === mt4Balance || type === mt4Credit) {
        items.push(
          mt4Deal(
            {
              ...common,
              type: type === mt4Balance ? 'balance' : 'credit',
              entry: 'in',
              volume: 0,
              price: 0,
              profit: decimalField(row, 'profit'),
              time_unix_ms: mt4CloseTimeMs(terminal, row),
            },
            false,
          ),
        );
        continue;
      }
      if (type > 1) continue;
      const volume = decimalField(row, 'volume');
      // A partial close lists the ticket once per part; it opened once.
      if (!opened.has(ticket)) {
        opened.add(ticket);
        const time = terminal.utcMsOf(integerField(row, 'time_open'));
        items.push(
          mt4Deal(
            { ...common, type: orderTypeName(type), entry: 'in', volume, price: decimalField(row, 'price_open'), time_unix_ms: time },
            false,
          ),
        );
      }
      items.push(
        mt4Deal(
          {
            ...common,
            type: orderTypeName(type === 0 ? 1 : 0),
            entry: 'out',
            volume,
            price: decimalField(row, 'price_close'),
            profit: decimalField(row, 'profit'),
            swap: decimalField(row, 'swap'),
            commission: decimalField(row, 'commission'),
            time_unix_ms: mt4CloseTimeMs(terminal, row),
          },
          true,
        ),
      );
    }
    return items;
  },
  openItems: (_terminal, open) =>
    open
      .filter((item) => item.kind === 'position')
      .map((item) =>
        mt4Deal(
          {
            ticket: item.ticket,
            symbol: item.symbol,
            magic: item.magic,
            comment: item.comment,
            type: orderTypeName(item.type),
            entry: 'in',
            volume: item.volume,
            price: item.openPrice,
            time_unix_ms: item.openedAtMs,
          },
          false,
        ),
      ),
};

export function historySourceOf(platform: 'mt4' | 'mt5', kind: HistoryKind): HistorySource {
  if (platform === 'mt5') return kind === 'deals' ? mt5Deals : mt5Orders;
  return kind === 'deals' ? mt4Deals : mt4Orders;
}
