import {
  BridgeAdapterBase,
  type BrokerRecord,
  type CloseOptions,
  closedTicketOf,
  type FindMatch,
  type ModifyOptions,
  type ModifyValues,
  type OpenItem,
  openItemOf,
  type PlaceOptions,
  type PlatformAdapter,
  type TradeOutcome,
} from '@mtx/connector-runtime/adapter';
import { tradeComment } from '@mtx/connector-runtime/bridge/client-tag';
import { decodeList } from '@mtx/connector-runtime/bridge/lists';
import { TerminalAnswerError, type TerminalHandle } from '@mtx/connector-runtime/terminal-access';
import { decimalField, integerField, requestArguments, textField } from '@mtx/connector-runtime/terminal-fields';
import type { OrderLegMessage } from '@mtx/shared/connector/messages';
import { expirationSeconds, normalizeOperation, orderTypeNumber, retcode } from '@mtx/shared/trading';
import { mt5ClosesByPrefix } from './closes-by-prefix';

/** MT5 trade actions (ENUM_TRADE_REQUEST_ACTIONS) and the constants a request names. */
const tradeAction = { deal: 1, pending: 5, remove: 8 } as const;
const orderTimeSpecified = 2;
const orderStateCanceled = 2;
const dealEntryIn = 0;
const dealEntryOut = 1;

/** MqlTradeResult as the EA answers a `send` or `close` (docs/terminal-bridge.md, "send"). */
function outcomeOf(fields: Map<string, string>): TradeOutcome {
  return {
    retcode: integerField(fields, 'retcode'),
    order: integerField(fields, 'order'),
    deal: integerField(fields, 'deal'),
    price: decimalField(fields, 'price'),
    bid: decimalField(fields, 'bid'),
    ask: decimalField(fields, 'ask'),
    volume: decimalField(fields, 'volume'),
    message: textField(fields, 'comment'),
  };
}

/** A trade found by its tag, as the outcome its `send` answered. */
function foundOutcome(match: FindMatch, code: number, order: number, deal: number): TradeOutcome {
  return { retcode: code, order, deal, price: match.price, bid: 0, ask: 0, volume: match.volume, message: '' };
}

/** What the trade server holds of a leg's order: its deal, its position, its pending order or its history order. */
function legRecord(clientId: string, matches: FindMatch[]): BrokerRecord | undefined {
  const base = { clientId, state: 'done' as const, action: 'open' as const };
  const deal = matches.find((match) => match.where === 'deal' && match.entry === dealEntryIn);
  if (deal)
    return {
      ...base,
      symbol: deal.symbol,
      ticket: deal.position,
      type: deal.type,
      volume: deal.volume,
      kind: 'position',
      outcome: foundOutcome(deal, retcode.DONE, deal.order, deal.ticket),
    };
  const found = ['order', 'position', 'history_order'].map((where) => matches.find((match) => match.where === where)).find(Boolean);
  if (!found) return undefined;
  const pending = found.type >= 2;
  return {
    ...base,
    symbol: found.symbol,
    ticket: found.ticket,
    type: found.type,
    volume: found.volume,
    kind: pending ? 'pending' : 'position',
    outcome: foundOutcome(found, pending ? retcode.PLACED : retcode.DONE, found.ticket, 0),
  };
}

/**
 * MT5 over the terminal bridge: one `send` per order (TRADE_ACTION_DEAL for market orders, TRADE_ACTION_PENDING
 * for pending ones), `close` by position ticket, `delete` for pending orders. Results are TRADE_RETCODE_* codes.
 */
export class Mt5Adapter extends BridgeAdapterBase implements PlatformAdapter {
  readonly platform = 'mt5' as const;

  async place(terminal: TerminalHandle, leg: OrderLegMessage, options: PlaceOptions): Promise<TradeOutcome> {
    const operation = normalizeOperation(leg.operation);
    if (!operation) throw new Error(`unknown operation ${leg.operation}`);
    const type = orderTypeNumber[operation];
    const pending = type >= 2;
    const price = leg.price ?? 0;
    const expirationUtc = expirationSeconds(leg.expiration);
    const fields = await terminal.request(
      'send',
      requestArguments({
        action: pending ? tradeAction.pending : tradeAction.deal,
        type,
        symbol: leg.symbol,
        volume: leg.volume,
        price,
        stoplimit: type >= 6 ? (leg.stop_limit_price ?? 0) : 0,
        sl: leg.stop_loss ?? 0,
        tp: leg.take_profit ?? 0,
        deviation: leg.slippage ?? (price > 0 ? options.defaultSlippagePoints : 0),
        type_time: expirationUtc > 0 ? orderTimeSpecified : undefined,
        expiration: expirationUtc > 0 ? terminal.serverSecondsOf(expirationUtc * 1000) : undefined,
        comment: tradeComment(leg.comment ?? '', leg.client_id),
        magic: leg.expert_id ?? 0,
      }),
      options.callDeadlineMs,
      options.fenceUnixMs,
    );
    return outcomeOf(fields);
  }

  async listOpen(terminal: TerminalHandle, kind: 'position' | 'pending' | 'any', deadlineMs: number): Promise<OpenItem[]> {
    const [positions, orders] = await Promise.all([
      kind === 'pending' ? [] : this.list(terminal, 'positions', deadlineMs),
      kind === 'position' ? [] : this.list(terminal, 'orders', deadlineMs),
    ]);
    return [
      ...positions.map((item) => openItemOf(terminal, item, 'position')),
      ...orders.map((item) => openItemOf(terminal, item, 'pending')),
    ];
  }

  private async list(terminal: TerminalHandle, name: 'positions' | 'orders', deadlineMs: number): Promise<Array<Map<string, string>>> {
    return decodeList(await terminal.request(name, [], deadlineMs), name);
  }

  async getTicket(terminal: TerminalHandle, ticket: number, deadlineMs: number): Promise<OpenItem | undefined> {
    try {
      const fields = await terminal.request('ticket', requestArguments({ ticket }), deadlineMs);
      return openItemOf(terminal, fields, textField(fields, 'kind') === 'order' ? 'pending' : 'position');
    } catch (error) {
      if (error instanceof TerminalAnswerError && error.error === 'not_found') return undefined;
      throw error;
    }
  }

  async close(terminal: TerminalHandle, item: OpenItem, options: CloseOptions): Promise<TradeOutcome> {
    if (item.kind === 'pending')
      return outcomeOf(
        await terminal.request('delete', requestArguments({ ticket: item.ticket }), options.callDeadlineMs, options.fenceUnixMs),
      );
    const fields = await terminal.request(
      'close',
      requestArguments({
        ticket: item.ticket,
        volume: options.volume > 0 ? options.volume : undefined,
        deviation: options.slippagePoints,
        comment: tradeComment('', options.clientId),
      }),
      options.callDeadlineMs,
      options.fenceUnixMs,
    );
    return outcomeOf(fields);
  }

  async modify(terminal: TerminalHandle, item: OpenItem, values: ModifyValues, options: ModifyOptions): Promise<TradeOutcome> {
    const pending = item.kind === 'pending';
    const expiration = pending && values.expirationUnixMs !== undefined ? values.expirationUnixMs : undefined;
    const fields = await terminal.request(
      'modify',
      requestArguments({
        ticket: item.ticket,
        sl: values.stopLoss,
        tp: values.takeProfit,
        price: pending ? values.price : undefined,
        // A specified expiration needs ORDER_TIME_SPECIFIED; none (0) is good till cancelled.
        type_time: expiration === undefined ? undefined : expiration > 0 ? orderTimeSpecified : 0,
        expiration: expiration === undefined ? undefined : expiration > 0 ? terminal.serverSecondsOf(expiration) : 0,
      }),
      options.callDeadlineMs,
      options.fenceUnixMs,
    );
    return outcomeOf(fields);
  }

  /**
   * Legs and closes by their tags (a close carries its own tag in the closing deal's comment); a pending order's
   * delete sends no comment, so a close id not found by tag is looked for as its ticket cancelled in history.
   */
  async lookup(terminal: TerminalHandle, clientIds: string[], deadlineMs: number): Promise<BrokerRecord[]> {
    if (clientIds.length === 0) return [];
    const matches = await this.find(terminal, clientIds, deadlineMs);
    const records: BrokerRecord[] = [];
    const unresolvedCloses: Array<[string, number]> = [];
    for (const clientId of clientIds) {
      const own = matches.filter((match) => match.clientId === clientId);
      const ticket = closedTicketOf(clientId);
      if (ticket === undefined) {
        const record = legRecord(clientId, own);
        if (record) records.push(record);
        continue;
      }
      const deal = own.find((match) => match.where === 'deal' && match.entry === dealEntryOut);
      if (deal)
        records.push({
          clientId,
          state: 'done',
          action: 'close',
          symbol: deal.symbol,
          ticket,
          type: deal.type === 0 ? 1 : 0,
          volume: deal.volume,
          kind: 'position',
          outcome: foundOutcome(deal, retcode.DONE, deal.order, deal.ticket),
        });
      else unresolvedCloses.push([clientId, ticket]);
    }
    if (unresolvedCloses.length === 0) return records;
    const history = await this.historyOrders(terminal, deadlineMs);
    for (const [clientId, ticket] of unresolvedCloses) {
      const order = history.find((entry) => integerField(entry, 'ticket') === ticket);
      if (!order || integerField(order, 'type') < 2 || integerField(order, 'state') !== orderStateCanceled) continue;
      const volume = decimalField(order, 'volume_initial');
      records.push({
        clientId,
        state: 'done',
        action: 'delete',
        symbol: textField(order, 'symbol'),
        ticket,
        type: integerField(order, 'type'),
        volume,
        kind: 'pending',
        outcome: { retcode: retcode.DONE, order: ticket, deal: 0, price: 0, bid: 0, ask: 0, volume, message: '' },
      });
    }
    return records;
  }

  /**
   * Closes by prefix (closes-by-prefix.ts): the deals since the window's start, and the history orders of the
   * whole lookback, since a pending order placed before the window may have been deleted within it.
   */
  async lookupCloses(terminal: TerminalHandle, prefix: string, fromUtcMs: number, deadlineMs: number): Promise<BrokerRecord[]> {
    const fromSeconds = terminal.serverSecondsOf(fromUtcMs);
    const deals = await this.history(terminal, 'deals', fromSeconds, deadlineMs);
    const orders = await this.historyOrders(terminal, deadlineMs);
    return mt5ClosesByPrefix(prefix, deals, orders, fromSeconds);
  }
}
