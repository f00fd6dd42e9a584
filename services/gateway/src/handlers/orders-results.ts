import type { CloseAccountInput } from '@mtx/shared/generated/proto/mtx/execution/v1/CloseAccountInput';
import { AppError } from '@mtx/shared/errors';
import type { Static } from '@sinclair/typebox';
import type { CloseAccountResult__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/CloseAccountResult';
import type { OrderLegResult__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/OrderLegResult';
import type { TicketResult__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/TicketResult';
import {
  closeSelectorProperties,
  orderFieldProperties,
  type CloseAccountResult,
  type OrderLegResult,
  type TicketResult,
} from './orders-schemas';

/**
 * Between the public shapes and execution's messages: the fields a request sets (proto3 presence), and results
 * as the public document states them (unset optional fields left out, numbers as numbers).
 */

function present<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

const nameSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/**
 * The fields of `source` named in `names` that are set. Walks the source's own keys (a leg sets a few of the
 * dozens of fields a leg may have), so a 20-leg batch does not probe every name on every leg.
 */
export function pick(source: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  let wanted = nameSets.get(names);
  if (!wanted) {
    wanted = new Set(names);
    nameSets.set(names, wanted);
  }
  const out: Record<string, unknown> = {};
  for (const name in source) if (wanted.has(name) && present(source[name])) out[name] = source[name];
  return out;
}

/** A close-shaped body's selector as execution takes it: top-level fields merged into `defaults` (a field given at
 * both levels is 400), and each account's own fields and tickets. Close and modify share it. */
export function selectorRequest(
  body: {
    defaults?: Record<string, unknown>;
    accounts: readonly ({ account_id: string; tickets?: number[] } & Record<string, unknown>)[];
  },
  names: readonly string[],
): { defaults: Record<string, unknown>; accounts: CloseAccountInput[] } {
  const topLevel = pick(body as Record<string, unknown>, names);
  const defaults = body.defaults ? pick(body.defaults, names) : {};
  for (const name of Object.keys(topLevel)) {
    if (name in defaults)
      throw new AppError('invalid_request', `${name} is given both at the top level and in defaults; give it once`, { param: name });
  }
  return {
    defaults: { ...defaults, ...topLevel },
    accounts: body.accounts.map((entry) => ({
      account_id: entry.account_id,
      fields: pick(entry, names),
      tickets: entry.tickets ?? [],
      has_tickets: entry.tickets !== undefined,
    })),
  };
}

export const orderFieldNames = Object.keys(orderFieldProperties);
export const closeFieldNames = Object.keys(closeSelectorProperties);

export function legResult(leg: OrderLegResult__Output): Static<typeof OrderLegResult> {
  const result: Record<string, unknown> = {
    account_id: leg.account_id,
    platform: leg.platform,
    symbol: leg.symbol,
    operation: leg.operation,
    volume: leg.volume,
    status: leg.status,
    order: Number(leg.order) || 0,
    deal: Number(leg.deal) || 0,
    message: leg.message ?? '',
    latency_ms: Number(leg.latency_ms) || 0,
  };
  for (const name of ['price', 'bid', 'ask', 'retcode', 'retcode_description'] as const) if (present(leg[name])) result[name] = leg[name];
  if (leg.sizing) {
    const sizing: Record<string, unknown> = { mode: leg.sizing.mode, computed_volume: leg.sizing.computed_volume };
    if (present(leg.sizing.equity)) sizing.equity = leg.sizing.equity;
    if (present(leg.sizing.balance)) sizing.balance = leg.sizing.balance;
    result.sizing = sizing;
  }
  return result as Static<typeof OrderLegResult>;
}

function ticketResult(ticket: TicketResult__Output): Static<typeof TicketResult> {
  const result: Record<string, unknown> = {
    ticket: Number(ticket.ticket),
    symbol: ticket.symbol,
    type: ticket.type,
    kind: ticket.kind,
    volume: ticket.volume,
    status: ticket.status,
    message: ticket.message ?? '',
  };
  for (const name of ['retcode', 'retcode_description', 'price'] as const) if (present(ticket[name])) result[name] = ticket[name];
  return result as Static<typeof TicketResult>;
}

export function closeAccountResult(account: CloseAccountResult__Output): Static<typeof CloseAccountResult> {
  return {
    account_id: account.account_id,
    platform: account.platform,
    status: account.status,
    matched: account.matched,
    closed: account.closed,
    message: account.message ?? '',
    latency_ms: Number(account.latency_ms) || 0,
    results: (account.results ?? []).map(ticketResult),
  };
}

export function summaryOf(summary: object | null | undefined, names: readonly string[]): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, Number((summary as Record<string, unknown> | null | undefined)?.[name]) || 0]));
}

export const placeSummaryNames = ['requested', 'filled', 'placed', 'failed', 'unknown'] as const;
export const closeSummaryNames = [
  'accounts',
  'matched',
  'closed',
  'failed',
  'unknown',
  'accounts_unknown',
  'accounts_unavailable',
  'accounts_failed',
] as const;

/** A batch's summary (orders or close) as the API shows it, from a stored batch or a listed one. */
export function batchSummaryOf(batch: {
  kind: string;
  orders_summary?: object | null;
  close_summary?: object | null;
}): Record<string, number> {
  return batch.kind === 'orders' ? summaryOf(batch.orders_summary, placeSummaryNames) : summaryOf(batch.close_summary, closeSummaryNames);
}
