import type { CloseAccountStatus, CloseReplyMessage, LegResultMessage, TicketResultMessage } from '@mtx/shared/connector/messages';
import { retcode, retcodeDescription } from '@mtx/shared/trading';
import type { Platform, StoredLeg, TerminalResponse } from './model';
import type { LegSizing } from './sizing';

/** What a batch answers: per-leg and per-account results and their summaries, built from terminal replies. Pure. */

export type LegStatus = 'filled' | 'placed' | 'rejected' | 'unavailable' | 'unknown';

export interface OrderLegResult {
  account_id: string;
  platform: Platform;
  symbol: string;
  operation: string;
  volume: number;
  status: LegStatus;
  order: number;
  deal: number;
  price?: number;
  bid?: number;
  ask?: number;
  retcode?: number;
  retcode_description?: string;
  message: string;
  latency_ms: number;
  /** A sized leg: the mode, the equity or balance used and the volume computed (domain/sizing.ts). */
  sizing?: LegSizing;
}

/** The leg's result with what its volume was computed from, when it was sized. */
export function withSizing(result: OrderLegResult, sizing: LegSizing | undefined): OrderLegResult {
  return sizing ? { ...result, sizing } : result;
}

export interface TicketResult {
  ticket: number;
  symbol: string;
  type: string;
  kind: string;
  volume: number;
  status: 'closed' | 'failed' | 'skipped' | 'unknown';
  retcode?: number;
  retcode_description?: string;
  price?: number;
  message: string;
}

export interface CloseAccountResult {
  account_id: string;
  platform: Platform;
  status: CloseAccountStatus;
  matched: number;
  closed: number;
  message: string;
  latency_ms: number;
  results: TicketResult[];
}

export interface PlaceSummary {
  requested: number;
  filled: number;
  placed: number;
  failed: number;
  unknown: number;
}

export interface CloseSummary {
  accounts: number;
  matched: number;
  closed: number;
  failed: number;
  unknown: number;
  accounts_unknown: number;
  accounts_unavailable: number;
  accounts_failed: number;
}

export interface PlaceOrdersResult {
  batch_id: string;
  summary: PlaceSummary;
  results: OrderLegResult[];
}

export interface CloseOrdersResult {
  batch_id: string;
  summary: CloseSummary;
  results: CloseAccountResult[];
}

export interface BatchView {
  batch_id: string;
  kind: 'orders' | 'close';
  created_at: string;
  settled: boolean;
  orders_summary?: PlaceSummary;
  orders?: OrderLegResult[];
  close_summary?: CloseSummary;
  accounts?: CloseAccountResult[];
}

export function placeSummary(results: Array<Pick<OrderLegResult, 'status'>>): PlaceSummary {
  const count = (status: LegStatus) => results.filter((result) => result.status === status).length;
  return {
    requested: results.length,
    filled: count('filled'),
    placed: count('placed'),
    failed: count('rejected') + count('unavailable'),
    unknown: count('unknown'),
  };
}

export function closeSummary(results: CloseAccountResult[]): CloseSummary {
  // Each count counts one thing: tickets in matched/closed/failed/unknown, accounts in the accounts_* fields.
  const summary: CloseSummary = {
    accounts: results.length,
    matched: 0,
    closed: 0,
    failed: 0,
    unknown: 0,
    accounts_unknown: 0,
    accounts_unavailable: 0,
    accounts_failed: 0,
  };
  for (const account of results) {
    summary.matched += account.matched;
    summary.closed += account.closed;
    summary.failed += account.results.filter((ticket) => ticket.status === 'failed').length;
    summary.unknown += account.results.filter((ticket) => ticket.status === 'unknown').length;
    if (account.status === 'unknown') summary.accounts_unknown += 1;
    if (account.status === 'unavailable') summary.accounts_unavailable += 1;
    if (account.status === 'failed' && account.results.length === 0) summary.accounts_failed += 1;
  }
  return summary;
}

export function closeStatusOf(results: TicketResult[]): CloseAccountStatus {
  const closed = results.filter((ticket) => ticket.status === 'closed').length;
  if (results.length === 0) return 'nothing_matched';
  if (closed === results.length) return 'closed';
  if (closed > 0) return 'partial';
  if (results.some((ticket) => ticket.status === 'unknown')) return 'unknown';
  return 'failed';
}

export function withRetcode<T extends { retcode?: number; retcode_description?: string }>(target: T, code: number | undefined): T {
  if (code) {
    target.retcode = code;
    target.retcode_description = retcodeDescription(code);
  }
  return target;
}

/** A leg result from the terminal's message, keeping the leg's own fields. */
export function legResultOf(leg: StoredLeg, message: LegResultMessage, latencyMs: number): OrderLegResult {
  const result: OrderLegResult = {
    account_id: leg.account_id,
    platform: leg.platform,
    symbol: leg.symbol,
    operation: leg.operation,
    volume: message.volume || leg.volume,
    status: message.status,
    order: message.order,
    deal: message.deal,
    message: message.message,
    latency_ms: latencyMs,
  };
  if (message.status === 'filled' || message.status === 'placed') {
    if (message.price !== undefined && message.price !== null) result.price = message.price;
    if (message.bid !== undefined && message.bid !== null) result.bid = message.bid;
    if (message.ask !== undefined && message.ask !== null) result.ask = message.ask;
  }
  return namedWithoutCode(withRetcode(result, message.retcode));
}

/**
 * A leg refused as an invalid request whose symbol lacks the account's broker suffix gets the suffix named: a
 * terminal only says the symbol is unknown, and a `defaults.symbol` sent to brokers with different suffixes
 * is the usual cause.
 */
export function withSymbolSuffixHint(result: OrderLegResult, symbolSuffix: string, server: string): OrderLegResult {
  if (result.status !== 'rejected' || result.retcode !== retcode.INVALID || !symbolSuffix || result.symbol.endsWith(symbolSuffix))
    return result;
  return { ...result, message: `${result.message} (symbols on ${server} end in ${symbolSuffix})` };
}

export function plainLeg(leg: StoredLeg, status: LegStatus, message: string, latencyMs: number, code?: number): OrderLegResult {
  const result: OrderLegResult = {
    account_id: leg.account_id,
    platform: leg.platform,
    symbol: leg.symbol,
    operation: leg.operation,
    volume: leg.volume,
    status,
    order: 0,
    deal: 0,
    message,
    latency_ms: latencyMs,
  };
  return namedWithoutCode(withRetcode(result, code));
}

/**
 * An unavailable or unknown leg has no retcode (no trade server answered it), yet its result names why, as the
 * spec keeps only `retcode` absent then: no connection to a terminal, or no answer in time.
 */
const namesWithoutCode: Partial<Record<LegStatus, string>> = { unavailable: 'TRADE_RETCODE_CONNECTION', unknown: 'TRADE_RETCODE_TIMEOUT' };

function namedWithoutCode(result: OrderLegResult): OrderLegResult {
  const name = namesWithoutCode[result.status];
  if (name && result.retcode === undefined) result.retcode_description = name;
  return result;
}

export function ticketResultOf(message: TicketResultMessage): TicketResult {
  const result: TicketResult = {
    ticket: message.ticket,
    symbol: message.symbol,
    type: message.type,
    kind: message.kind,
    volume: message.volume,
    status: message.status,
    message: message.message,
  };
  if (message.price !== undefined && message.price !== null) result.price = message.price;
  return withRetcode(result, message.retcode);
}

export function closeResultOf(accountId: string, platform: Platform, reply: CloseReplyMessage, latencyMs: number): CloseAccountResult {
  return {
    account_id: accountId,
    platform,
    status: reply.status,
    matched: reply.matched,
    closed: reply.closed,
    message: reply.message,
    latency_ms: latencyMs,
    results: reply.results.map(ticketResultOf),
  };
}

export function plainClose(
  accountId: string,
  platform: Platform,
  status: CloseAccountStatus,
  message: string,
  latencyMs: number,
): CloseAccountResult {
  return { account_id: accountId, platform, status, matched: 0, closed: 0, message, latency_ms: latencyMs, results: [] };
}

/** What a terminal request that got no reply means for its legs: unavailable (nothing sent), unknown, or rejected. */
export function describeFailure(
  response: Exclude<TerminalResponse, { kind: 'reply' }>,
  platform: Platform,
  timeoutMs: number,
): { status: 'unavailable' | 'unknown' | 'rejected'; message: string } {
  switch (response.kind) {
    case 'no_responders':
      return { status: 'unavailable', message: `no ${platform} terminal is running for this account; nothing was sent` };
    case 'timeout':
      return {
        status: 'unknown',
        message: `no reply from the terminal within ${timeoutMs} ms; the order may have executed and will be reconciled`,
      };
    case 'service_error':
      if (response.code === 503)
        return { status: 'unavailable', message: `the terminal is overloaded; nothing was sent (${response.message})` };
      if (response.code === 400)
        return { status: 'rejected', message: `the terminal could not read the request; nothing was sent (${response.message})` };
      return { status: 'unknown', message: `the terminal failed while handling the request (${response.message}); it will be reconciled` };
  }
}
