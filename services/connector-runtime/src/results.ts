import { orderTypeName, retcodeDescription } from '@mtx/shared/trading';
import type { LegResultMessage, LegStatus, LookupEntryMessage, OrderLegMessage, TicketResultMessage } from '@mtx/shared/connector/messages';
import type { BrokerRecord, OpenItem, TradeOutcome } from './adapter';
import { legStatusOf, ticketClosedBy } from './selection';

/** The answers a connector gives per leg, per ticket and per looked-up record, from a trade server's outcome. Pure. */

export function legResult(
  leg: OrderLegMessage,
  status: LegStatus,
  startedMs: number,
  message: string,
  outcome?: TradeOutcome,
  code?: number,
): LegResultMessage {
  const result: LegResultMessage = {
    client_id: leg.client_id,
    leg_index: leg.leg_index,
    status,
    order: outcome?.order ?? 0,
    deal: outcome?.deal ?? 0,
    retcode: code ?? outcome?.retcode ?? 0,
    retcode_description: '',
    message,
    latency_ms: Date.now() - startedMs,
    volume: outcome?.volume || leg.volume,
    symbol: leg.symbol,
    operation: leg.operation,
  };
  if (result.retcode) result.retcode_description = retcodeDescription(result.retcode);
  if (outcome && (status === 'filled' || status === 'placed')) {
    result.price = outcome.price;
    result.bid = outcome.bid;
    result.ask = outcome.ask;
  }
  return result;
}

export function outcomeResult(leg: OrderLegMessage, outcome: TradeOutcome, startedMs: number, note = ''): LegResultMessage {
  const status = legStatusOf(outcome.retcode);
  const message = status === 'rejected' ? outcome.message : note;
  return legResult(leg, status, startedMs, message, outcome);
}

/** What a ticket result names of the order it concerns. */
export type TicketIdentity = Pick<OpenItem, 'ticket' | 'symbol' | 'type' | 'kind' | 'volume'>;

export function ticketResult(
  item: TicketIdentity,
  status: TicketResultMessage['status'],
  message: string,
  clientId: string,
  outcome?: TradeOutcome,
  code?: number,
  volume?: number,
): TicketResultMessage {
  const result: TicketResultMessage = {
    ticket: item.ticket,
    symbol: item.symbol,
    type: orderTypeName(item.type),
    kind: item.kind,
    volume: volume ?? (outcome?.volume || item.volume),
    status,
    retcode: code ?? outcome?.retcode ?? 0,
    retcode_description: '',
    message,
    client_id: clientId,
  };
  if (result.retcode) result.retcode_description = retcodeDescription(result.retcode);
  // A close price only where the trade server closed at one; 0 for a ticket it did not close.
  result.price = outcome && outcome.price > 0 ? outcome.price : 0;
  return result;
}

export function entryOf(record: BrokerRecord): LookupEntryMessage {
  const entry: LookupEntryMessage = { client_id: record.clientId, state: record.state, action: record.action };
  if (record.state !== 'done' || !record.outcome) return entry;
  const outcome = record.outcome;
  if (record.action === 'open') {
    const status = legStatusOf(outcome.retcode);
    const leg: LegResultMessage = {
      client_id: record.clientId,
      leg_index: 0,
      status,
      order: outcome.order,
      deal: outcome.deal,
      retcode: outcome.retcode,
      retcode_description: retcodeDescription(outcome.retcode),
      message: status === 'rejected' ? outcome.message : '',
      latency_ms: 0,
      volume: outcome.volume || record.volume,
      symbol: record.symbol,
      operation: '',
    };
    if (status !== 'rejected') {
      leg.price = outcome.price;
      leg.bid = outcome.bid;
      leg.ask = outcome.ask;
    }
    entry.leg = leg;
  } else {
    const closed = ticketClosedBy(outcome.retcode);
    const item: TicketIdentity = {
      ticket: record.ticket,
      symbol: record.symbol,
      type: record.type,
      kind: record.kind || (record.action === 'delete' ? 'pending' : 'position'),
      volume: record.volume,
    };
    entry.ticket = ticketResult(item, closed ? 'closed' : 'failed', closed ? '' : outcome.message, record.clientId, outcome);
  }
  return entry;
}
