import {
  BridgeAdapterBase,
  type BrokerRecord,
  type CloseOptions,
  closedTicketOf,
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
import { mt4ErrorName, mt4ErrorToRetcode } from '@mtx/connector-runtime/mt4-errors';
import { TerminalAnswerError, type TerminalHandle } from '@mtx/connector-runtime/terminal-access';
import { decimalField, integerField, requestArguments, textField } from '@mtx/connector-runtime/terminal-fields';
import type { OrderLegMessage } from '@mtx/shared/connector/messages';
import {
  expirationSeconds,
  isPendingOperation,
  isStopLimitOperation,
  normalizeOperation,
  orderTypeNumber,
  retcode,
} from '@mtx/shared/trading';
import { mt4ClosesByPrefix } from './closes-by-prefix';

/**
 * An MT4 trade answer (`error` and `ticket`, and on success `price`, `volume`, `bid`, `ask`) as an MT5-style
 * outcome: the error number mapped by mt4-errors.ts (docs/terminal-bridge.md, "MT4 errors and MT5 retcodes").
 * MT4 has one ticket per order, so a market fill reports the ticket as both order and deal.
 */
export function mt4Outcome(fields: Map<string, string>, pending: boolean): TradeOutcome {
  const error = integerField(fields, 'error');
  const ticket = Math.max(0, integerField(fields, 'ticket'));
  return {
    retcode: mt4ErrorToRetcode(error, pending),
    order: ticket,
    deal: error === 0 && !pending ? ticket : 0,
    price: decimalField(fields, 'price'),
    bid: decimalField(fields, 'bid'),
    ask: decimalField(fields, 'ask'),
    volume: decimalField(fields, 'volume'),
    message: error === 0 ? '' : `MT4 error ${error} ${mt4ErrorName(error)}`,
  };
}

/** MT4 lists positions and orders alike; the type tells a market position (0, 1) from a pending order. */
function openItem(terminal: TerminalHandle, fields: Map<string, string>): OpenItem {
  return openItemOf(terminal, fields, integerField(fields, 'type') <= 1 ? 'position' : 'pending');
}

/**
 * MT4 over the terminal bridge: `send` with OP_* types, `close` (OrderClose) for market orders, `delete`
 * (OrderDelete) for pending ones. MT4 has no stop-limit orders; the runtime refuses them before anything is
 * sent. An OrderClose sends no comment, so a close is reconciled by its ticket in the history pool.
 */
export class Mt4Adapter extends BridgeAdapterBase implements PlatformAdapter {
  readonly platform = 'mt4' as const;

  async place(terminal: TerminalHandle, leg: OrderLegMessage, options: PlaceOptions): Promise<TradeOutcome> {
    const operation = normalizeOperation(leg.operation);
    if (!operation || isStopLimitOperation(operation)) throw new Error(`operation ${leg.operation} does not exist on MT4`);
    const pending = isPendingOperation(operation);
    const price = leg.price ?? 0;
    const expirationUtc = expirationSeconds(leg.expiration);
    const fields = await terminal.request(
      'send',
      requestArguments({
        symbol: leg.symbol,
        op: orderTypeNumber[operation],
        volume: leg.volume,
        price,
        slippage: leg.slippage ?? (price > 0 ? options.defaultSlippagePoints : 0),
        stoploss: leg.stop_loss ?? 0,
        takeprofit: leg.take_profit ?? 0,
        comment: tradeComment(leg.comment ?? '', leg.client_id),
        magic: leg.expert_id ?? 0,
        expiration: expirationUtc > 0 ? terminal.serverSecondsOf(expirationUtc * 1000) : undefined,
      }),
      options.callDeadlineMs,
      options.fenceUnixMs,
    );
    return mt4Outcome(fields, pending);
  }

  async listOpen(terminal: TerminalHandle, kind: 'position' | 'pending' | 'any', deadlineMs: number): Promise<OpenItem[]> {
    const [positions, orders] = await Promise.all([
      kind === 'pending' ? [] : decodeList(await terminal.request('positions', [], deadlineMs), 'positions'),
      kind === 'position' ? [] : decodeList(await terminal.request('orders', [], deadlineMs), 'orders'),
    ]);
    return [...positions, ...orders].map((fields) => openItem(terminal, fields));
  }

  async getTicket(terminal: TerminalHandle, ticket: number, deadlineMs: number): Promise<OpenItem | undefined> {
    try {
      return openItem(terminal, await terminal.request('ticket', requestArguments({ ticket }), deadlineMs));
    } catch (error) {
      if (error instanceof TerminalAnswerError && error.error === 'not_found') return undefined;
      throw error;
    }
  }

  async close(terminal: TerminalHandle, target: OpenItem, options: CloseOptions): Promise<TradeOutcome> {
    if (target.kind === 'pending')
      return mt4Outcome(
        await terminal.request('delete', requestArguments({ ticket: target.ticket }), options.callDeadlineMs, options.fenceUnixMs),
        false,
      );
    const fields = await terminal.request(
      'close',
      requestArguments({
        ticket: target.ticket,
        volume: options.volume > 0 ? options.volume : target.volume,
        slippage: options.slippagePoints ?? 0,
      }),
      options.callDeadlineMs,
      options.fenceUnixMs,
    );
    return mt4Outcome(fields, false);
  }

  /** OrderModify: an absent argument keeps the order's current value (the EA fills it in). */
  async modify(terminal: TerminalHandle, target: OpenItem, values: ModifyValues, options: ModifyOptions): Promise<TradeOutcome> {
    const pending = target.kind === 'pending';
    const expiration = pending ? values.expirationUnixMs : undefined;
    const fields = await terminal.request(
      'modify',
      requestArguments({
        ticket: target.ticket,
        sl: values.stopLoss,
        tp: values.takeProfit,
        price: pending ? values.price : undefined,
        expiration: expiration === undefined ? undefined : expiration > 0 ? terminal.serverSecondsOf(expiration) : 0,
      }),
      options.callDeadlineMs,
      options.fenceUnixMs,
    );
    return mt4Outcome(fields, false);
  }

  /** Legs by their tags (open, pending or in history); closes and deletes by their ticket in the history pool. */
  async lookup(terminal: TerminalHandle, clientIds: string[], deadlineMs: number): Promise<BrokerRecord[]> {
    const legIds = clientIds.filter((clientId) => closedTicketOf(clientId) === undefined);
    const closeIds = clientIds.filter((clientId) => closedTicketOf(clientId) !== undefined);
    const records: BrokerRecord[] = [];
    const matches = legIds.length > 0 ? await this.find(terminal, legIds, deadlineMs) : [];
    for (const clientId of legIds) {
      const found = ['position', 'order', 'history_order']
        .map((where) => matches.find((match) => match.clientId === clientId && match.where === where))
        .find(Boolean);
      if (!found) continue;
      const pending = found.type >= 2;
      records.push({
        clientId,
        state: 'done',
        action: 'open',
        symbol: found.symbol,
        ticket: found.ticket,
        type: found.type,
        volume: found.volume,
        kind: pending ? 'pending' : 'position',
        outcome: {
          retcode: pending ? retcode.PLACED : retcode.DONE,
          order: found.ticket,
          deal: pending ? 0 : found.ticket,
          price: found.price,
          bid: 0,
          ask: 0,
          volume: found.volume,
          message: '',
        },
      });
    }
    if (closeIds.length === 0) return records;
    const history = await this.historyOrders(terminal, deadlineMs);
    for (const clientId of closeIds) {
      const ticket = closedTicketOf(clientId)!;
      const order = history.find((entry) => integerField(entry, 'ticket') === ticket);
      const type = order ? integerField(order, 'type') : -1;
      if (!order || type > 5) continue;
      const volume = decimalField(order, 'volume');
      const position = type <= 1;
      records.push({
        clientId,
        state: 'done',
        action: position ? 'close' : 'delete',
        symbol: textField(order, 'symbol'),
        ticket,
        type,
        volume,
        kind: position ? 'position' : 'pending',
        outcome: {
          retcode: retcode.DONE,
          order: ticket,
          deal: position ? ticket : 0,
          price: position ? decimalField(order, 'price_close') : 0,
          bid: 0,
          ask: 0,
          volume,
          message: '',
        },
      });
    }
    return records;
  }

  /** Closes by prefix (closes-by-prefix.ts): the history pool's orders closed since the window's start. */
  async lookupCloses(terminal: TerminalHandle, prefix: string, fromUtcMs: number, deadlineMs: number): Promise<BrokerRecord[]> {
    const fromSeconds = terminal.serverSecondsOf(fromUtcMs);
    return mt4ClosesByPrefix(prefix, await this.history(terminal, 'orders', fromSeconds, deadlineMs), fromSeconds);
  }
}
