import {
  BrokerAdapterBase,
  type BrokerRecord,
  type OpenItem,
  type PlatformAdapter,
  type TradeOutcome,
} from '@mtx/connector-runtime/adapter';
import type { BrokerSession } from '@mtx/connector-runtime/broker-client';
import type { OrderLegMessage } from '@mtx/shared/connector/messages';
import { expirationSeconds, normalizeOperation, orderTypeNumber } from '@mtx/shared/trading';

/** MT5 trade actions (ENUM_TRADE_REQUEST_ACTIONS). */
const tradeAction = { deal: 1, pending: 5, remove: 8 } as const;

interface Mt5TradeResult {
  retcode: number;
  deal: number;
  order: number;
  volume: number;
  price: number;
  bid: number;
  ask: number;
  comment: string;
}

interface Mt5Position {
  ticket: number;
  symbol: string;
  type: number;
  volume: number;
  price_open: number;
  price_current: number;
  sl: number;
  tp: number;
  profit: number;
  swap: number;
  magic: number;
  comment: string;
  time: number;
}

interface Mt5Order {
  ticket: number;
  symbol: string;
  type: number;
  volume_current: number;
  price_open: number;
  price_current: number;
  sl: number;
  tp: number;
  magic: number;
  comment: string;
  time_setup: number;
}

function outcomeOf(result: Mt5TradeResult): TradeOutcome {
  return {
    retcode: result.retcode,
    order: result.order,
    deal: result.deal,
    price: result.price,
    bid: result.bid,
    ask: result.ask,
    volume: result.volume,
    message: result.comment,
  };
}

function positionItem(position: Mt5Position): OpenItem {
  return {
    ticket: position.ticket,
    symbol: position.symbol,
    type: position.type,
    kind: 'position',
    volume: position.volume,
    magic: position.magic,
    openPrice: position.price_open,
    currentPrice: position.price_current,
    stopLoss: position.sl,
    takeProfit: position.tp,
    profit: position.profit,
    swap: position.swap,
    comment: position.comment,
    openedAtMs: position.time * 1000,
  };
}

function orderItem(order: Mt5Order): OpenItem {
  return {
    ticket: order.ticket,
    symbol: order.symbol,
    type: order.type,
    kind: 'pending',
    volume: order.volume_current,
    magic: order.magic,
    openPrice: order.price_open,
    currentPrice: order.price_current,
    stopLoss: order.sl,
    takeProfit: order.tp,
    profit: 0,
    swap: 0,
    comment: order.comment,
    openedAtMs: order.time_setup * 1000,
  };
}

/**
 * MT5 over broker-sim: one OrderSend per request (TRADE_ACTION_DEAL for market orders and closes by position
 * ticket, TRADE_ACTION_PENDING for pending orders, TRADE_ACTION_REMOVE to delete them). Results are already
 * TRADE_RETCODE_* codes.
 */
export class Mt5Adapter extends BrokerAdapterBase implements PlatformAdapter {
  readonly platform = 'mt5' as const;

  async place(
    session: BrokerSession,
    leg: OrderLegMessage,
    options: { deadlineUnixMs: number; callDeadlineMs: number; defaultSlippagePoints: number },
  ): Promise<TradeOutcome> {
    const operation = normalizeOperation(leg.operation);
    if (!operation) throw new Error(`unknown operation ${leg.operation}`);
    const type = orderTypeNumber[operation];
    const pending = type >= 2;
    const price = leg.price ?? 0;
    const result = await this.client.call<Mt5TradeResult>(
      'Mt5OrderSend',
      {
        session_id: session.sessionId,
        client_id: leg.client_id,
        deadline_unix_ms: options.deadlineUnixMs,
        action: pending ? tradeAction.pending : tradeAction.deal,
        magic: leg.expert_id ?? 0,
        symbol: leg.symbol,
        volume: leg.volume,
        price,
        stoplimit: type >= 6 ? (leg.stop_limit_price ?? 0) : 0,
        sl: leg.stop_loss ?? 0,
        tp: leg.take_profit ?? 0,
        deviation: leg.slippage ?? (price > 0 ? options.defaultSlippagePoints : 0),
        type,
        expiration: expirationSeconds(leg.expiration),
        comment: leg.comment ?? '',
      },
      options.callDeadlineMs,
      session.traceContext,
    );
    return outcomeOf(result);
  }

  async listOpen(session: BrokerSession, kind: 'position' | 'pending' | 'any', callDeadlineMs: number): Promise<OpenItem[]> {
    const [positions, orders] = await Promise.all([
      kind === 'pending'
        ? Promise.resolve({ positions: [] as Mt5Position[] })
        : this.client.call<{ positions: Mt5Position[] }>(
            'Mt5Positions',
            { session_id: session.sessionId },
            callDeadlineMs,
            session.traceContext,
          ),
      kind === 'position'
        ? Promise.resolve({ orders: [] as Mt5Order[] })
        : this.client.call<{ orders: Mt5Order[] }>('Mt5Orders', { session_id: session.sessionId }, callDeadlineMs, session.traceContext),
    ]);
    return [...positions.positions.map(positionItem), ...orders.orders.map(orderItem)];
  }

  async getTicket(session: BrokerSession, ticket: number, callDeadlineMs: number): Promise<OpenItem | undefined> {
    const response = await this.client.call<{ found: boolean; mt5_position?: Mt5Position; mt5_order?: Mt5Order }>(
      'GetTicket',
      { session_id: session.sessionId, ticket },
      callDeadlineMs,
      session.traceContext,
    );
    if (!response.found) return undefined;
    if (response.mt5_position) return positionItem(response.mt5_position);
    if (response.mt5_order) return orderItem(response.mt5_order);
    return undefined;
  }

  async close(
    session: BrokerSession,
    item: OpenItem,
    options: { clientId: string; volume: number; slippagePoints: number | undefined; deadlineUnixMs: number; callDeadlineMs: number },
  ): Promise<TradeOutcome> {
    const base = {
      session_id: session.sessionId,
      client_id: options.clientId,
      deadline_unix_ms: options.deadlineUnixMs,
      symbol: item.symbol,
    };
    const request =
      item.kind === 'pending'
        ? { ...base, action: tradeAction.remove, order: item.ticket }
        : {
            ...base,
            action: tradeAction.deal,
            position: item.ticket,
            volume: options.volume > 0 ? options.volume : item.volume,
            type: item.type === 0 ? 1 : 0,
            deviation: options.slippagePoints ?? 0,
          };
    return outcomeOf(await this.client.call<Mt5TradeResult>('Mt5OrderSend', request, options.callDeadlineMs, session.traceContext));
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
        mt5?: Mt5TradeResult;
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
      if (record.mt5) converted.outcome = outcomeOf(record.mt5);
      return converted;
    });
  }
}
