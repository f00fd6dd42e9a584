import {
  BrokerAdapterBase,
  type BrokerRecord,
  type OpenItem,
  type PlatformAdapter,
  type TradeOutcome,
} from '@mtx/connector-runtime/adapter';
import type { BrokerSession } from '@mtx/connector-runtime/broker-client';
import type { OrderLegMessage } from '@mtx/shared/connector/messages';
import { expirationSeconds, isPendingOperation, isStopLimitOperation, normalizeOperation, orderTypeNumber } from '@mtx/shared/trading';
import { mt4ErrorName, mt4ErrorToRetcode } from '@mtx/connector-runtime/mt4-errors';

interface Mt4Result {
  error: number;
  description: string;
  ticket: number;
  price: number;
  bid: number;
  ask: number;
  lots: number;
  new_ticket: number;
}

interface Mt4Order {
  ticket: number;
  symbol: string;
  cmd: number;
  lots: number;
  open_price: number;
  close_price: number;
  stoploss: number;
  takeprofit: number;
  profit: number;
  swap: number;
  magic: number;
  comment: string;
  open_time: number;
}

/**
 * An MT4 result as an MT5-style outcome. MT4 has one ticket per order, so a market fill reports the ticket
 * as both order and deal; errors keep their MT4 number and name in the message.
 */
export function mt4Outcome(result: Mt4Result, pending: boolean): TradeOutcome {
  const retcode = mt4ErrorToRetcode(result.error, pending);
  const message =
    result.error === 0 ? result.description : `${result.description} (MT4 error ${result.error} ${mt4ErrorName(result.error)})`;
  return {
    retcode,
    order: result.ticket,
    deal: result.error === 0 && !pending ? result.ticket : 0,
    price: result.price,
    bid: result.bid,
    ask: result.ask,
    volume: result.lots,
    message,
  };
}

function item(order: Mt4Order): OpenItem {
  return {
    ticket: order.ticket,
    symbol: order.symbol,
    type: order.cmd,
    kind: order.cmd <= 1 ? 'position' : 'pending',
    volume: order.lots,
    magic: order.magic,
    openPrice: order.open_price,
    currentPrice: order.close_price,
    stopLoss: order.stoploss,
    takeProfit: order.takeprofit,
    profit: order.profit,
    swap: order.swap,
    comment: order.comment,
    openedAtMs: order.open_time * 1000,
  };
}

/**
 * MT4 over broker-sim: OrderSend with OP_* commands, OrderClose for market orders, OrderDelete for pending
 * ones. MT4 has no stop-limit orders; the runtime refuses them before anything is sent.
 */
export class Mt4Adapter extends BrokerAdapterBase implements PlatformAdapter {
  readonly platform = 'mt4' as const;

  async place(
    session: BrokerSession,
    leg: OrderLegMessage,
    options: { deadlineUnixMs: number; callDeadlineMs: number; defaultSlippagePoints: number },
  ): Promise<TradeOutcome> {
    const operation = normalizeOperation(leg.operation);
    if (!operation || isStopLimitOperation(operation)) throw new Error(`operation ${leg.operation} does not exist on MT4`);
    const pending = isPendingOperation(operation);
    const price = leg.price ?? 0;
    const result = await this.client.call<Mt4Result>(
      'Mt4OrderSend',
      {
        session_id: session.sessionId,
        client_id: leg.client_id,
        deadline_unix_ms: options.deadlineUnixMs,
        symbol: leg.symbol,
        cmd: orderTypeNumber[operation],
        volume: leg.volume,
        price,
        slippage: leg.slippage ?? (price > 0 ? options.defaultSlippagePoints : 0),
        stoploss: leg.stop_loss ?? 0,
        takeprofit: leg.take_profit ?? 0,
        comment: leg.comment ?? '',
        magic: leg.expert_id ?? 0,
        expiration: expirationSeconds(leg.expiration),
      },
      options.callDeadlineMs,
      session.traceContext,
    );
    return mt4Outcome(result, pending);
  }

  async listOpen(session: BrokerSession, kind: 'position' | 'pending' | 'any', callDeadlineMs: number): Promise<OpenItem[]> {
    const response = await this.client.call<{ orders: Mt4Order[] }>(
      'Mt4Orders',
      { session_id: session.sessionId },
      callDeadlineMs,
      session.traceContext,
    );
    return response.orders.map(item).filter((entry) => kind === 'any' || entry.kind === kind);
  }

  async getTicket(session: BrokerSession, ticket: number, callDeadlineMs: number): Promise<OpenItem | undefined> {
    const response = await this.client.call<{ found: boolean; mt4_order?: Mt4Order }>(
      'GetTicket',
      { session_id: session.sessionId, ticket },
      callDeadlineMs,
      session.traceContext,
    );
    return response.found && response.mt4_order ? item(response.mt4_order) : undefined;
  }

  async close(
    session: BrokerSession,
    target: OpenItem,
    options: { clientId: string; volume: number; slippagePoints: number | undefined; deadlineUnixMs: number; callDeadlineMs: number },
  ): Promise<TradeOutcome> {
    const base = {
      session_id: session.sessionId,
      client_id: options.clientId,
      deadline_unix_ms: options.deadlineUnixMs,
      ticket: target.ticket,
    };
    if (target.kind === 'pending')
      return mt4Outcome(await this.client.call<Mt4Result>('Mt4OrderDelete', base, options.callDeadlineMs, session.traceContext), false);
    const lots = options.volume > 0 ? options.volume : target.volume;
    const result = await this.client.call<Mt4Result>(
      'Mt4OrderClose',
      { ...base, lots, price: 0, slippage: options.slippagePoints ?? 0 },
      options.callDeadlineMs,
      session.traceContext,
    );
    return mt4Outcome(result, false);
  }

  async lookup(session: BrokerSession, clientIds: string[], prefix: string, callDeadlineMs: number): Promise<BrokerRecord[]> {
    const response = await this.client.call<{
      records: Array<{
        client_id: string;
        state: string;
        action: string;
        symbol: string;
        ticket: number;
        type: number;
        volume: number;
        kind: string;
        mt4?: Mt4Result;
      }>;
    }>(
      'LookupRequests',
      { session_id: session.sessionId, client_ids: clientIds, client_id_prefix: prefix },
      callDeadlineMs,
      session.traceContext,
    );
    return response.records.map((record) => {
      const converted: BrokerRecord = {
        clientId: record.client_id,
        state: record.state === 'done' ? 'done' : 'processing',
        action: record.action as BrokerRecord['action'],
        symbol: record.symbol,
        ticket: record.ticket,
        type: record.type,
        volume: record.volume,
        kind: record.kind as BrokerRecord['kind'],
      };
      if (record.mt4) converted.outcome = mt4Outcome(record.mt4, record.action === 'open' && record.type >= 2);
      return converted;
    });
  }
}
