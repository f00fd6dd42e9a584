import type { ModifyAccountStatus, ModifyReplyMessage, ModifyTicketResultMessage } from '@mtx/shared/connector/desk-messages';
import type { Platform } from '../store/execution-store';

/** A modify's outcome per account and over the request, as the API answers it. Pure. */

export type ModifyTicketView = Omit<ModifyTicketResultMessage, 'retcode' | 'retcode_description'> & {
  retcode?: number;
  retcode_description?: string;
};

export interface ModifyAccountResult {
  account_id: string;
  platform: Platform;
  status: ModifyAccountStatus;
  matched: number;
  modified: number;
  message: string;
  latency_ms: number;
  results: ModifyTicketView[];
}

export interface ModifySummary {
  accounts: number;
  matched: number;
  modified: number;
  failed: number;
  unknown: number;
  accounts_unknown: number;
}

export interface ModifyOrdersResult {
  batch_id: string;
  summary: ModifySummary;
  results: ModifyAccountResult[];
}

export function modifyResultOf(accountId: string, platform: Platform, reply: ModifyReplyMessage, latencyMs: number): ModifyAccountResult {
  return {
    account_id: accountId,
    platform,
    status: reply.status,
    matched: reply.matched,
    modified: reply.modified,
    message: reply.message,
    latency_ms: latencyMs,
    results: reply.results.map((ticket) => ({
      ticket: Number(ticket.ticket),
      symbol: ticket.symbol,
      type: ticket.type,
      kind: ticket.kind,
      status: ticket.status,
      ...(ticket.retcode ? { retcode: ticket.retcode, retcode_description: ticket.retcode_description } : {}),
      stop_loss: ticket.stop_loss,
      take_profit: ticket.take_profit,
      price: ticket.price,
      message: ticket.message,
    })),
  };
}

export function plainModify(
  accountId: string,
  platform: Platform,
  status: 'unavailable' | 'unknown',
  message: string,
  latencyMs: number,
): ModifyAccountResult {
  return { account_id: accountId, platform, status, matched: 0, modified: 0, message, latency_ms: latencyMs, results: [] };
}

export function modifySummaryOf(results: ModifyAccountResult[]): ModifySummary {
  const tickets = results.flatMap((account) => account.results);
  return {
    accounts: results.length,
    matched: results.reduce((sum, account) => sum + account.matched, 0),
    modified: results.reduce((sum, account) => sum + account.modified, 0),
    failed: tickets.filter((ticket) => ticket.status === 'rejected').length,
    unknown: tickets.filter((ticket) => ticket.status === 'unknown').length,
    accounts_unknown: results.filter((account) => account.status === 'unknown' && account.results.length === 0).length,
  };
}
