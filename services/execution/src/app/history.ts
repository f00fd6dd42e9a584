import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Clock } from '@mtx/shared/clock';
import {
  deskCodecs,
  type HistoryDealMessage,
  type HistoryKind,
  type HistoryOrderMessage,
  type HistoryReplyMessage,
} from '@mtx/shared/connector/desk-messages';
import { AppError } from '@mtx/shared/errors';
import type { AccountRegistry, ResolvedAccount } from './accounts';
import type { TerminalClient } from '../clients/terminals';
import {
  accountBound,
  type AccountHistoryPage,
  decodeCursor,
  encodeCursor,
  type HistoryPosition,
  historyLimitDefault,
  historyLimitMax,
  historyRangeDefaultMs,
  historyRangeMaxMs,
  mergeHistoryPages,
} from '../domain/history-pages';
import { closeAccountsMax } from '../domain/validation';
import type { Platform } from '../store/execution-store';

const tracer = trace.getTracer('mtx-execution');

export interface HistoryQuery {
  kind: HistoryKind;
  account_ids: string[];
  from_ms?: number;
  to_ms?: number;
  symbol?: string;
  limit?: number;
  starting_after?: string;
}

type Located = { account_id: string; platform: Platform };
export type DealView = Omit<HistoryDealMessage, 'time_unix_ms'> & Located & { time: string };
export type OrderView = Omit<HistoryOrderMessage, 'time_setup_unix_ms' | 'time_done_unix_ms'> &
  Located & { time_setup: string; time_done: string };

export interface HistoryPageView {
  deals: DealView[];
  orders: OrderView[];
  has_more: boolean;
  next_cursor: string;
  accounts: Array<{ account_id: string; status: 'ok' | 'unavailable' | 'unknown'; message: string }>;
}

export interface HistoryOptions {
  registry: AccountRegistry;
  terminals: TerminalClient;
  clock: Clock;
  readDeadlineMs: number;
}

const iso = (unixMs: number) => new Date(Number(unixMs)).toISOString();
const invalid = (message: string, param: string) => new AppError('invalid_request', message, { param });

/**
 * History across accounts: each account's terminal is asked for its newest items after the cursor (one NATS
 * request per account, concurrently, until the read deadline), and the answers are merged newest first
 * (domain/history-pages.ts). Nothing is stored: the terminal's history is the record.
 */
export class HistoryReader {
  constructor(private readonly options: HistoryOptions) {}

  private async accountsFor(customerId: string, ids: string[]): Promise<ResolvedAccount[]> {
    if (ids.length > closeAccountsMax)
      throw new AppError('too_many_accounts', `a history read covers at most ${closeAccountsMax} accounts; this one names ${ids.length}`, {
        param: 'account_id',
      });
    if (new Set(ids).size !== ids.length) throw invalid('an account is named more than once', 'account_id');
    const chosen =
      ids.length > 0 ? ids : (await this.options.registry.list(customerId)).slice(0, closeAccountsMax).map((account) => account.id);
    const resolved = await this.options.registry.resolve(chosen);
    return chosen.map((id) => {
      const account = resolved.get(id);
      // Another customer's account reads exactly as one that does not exist.
      if (!account || account.document.customer_id !== customerId)
        throw new AppError('not_found', `no account ${id}`, { param: 'account_id' });
      return account;
    });
  }

  async list(customerId: string, query: HistoryQuery): Promise<HistoryPageView> {
    const limit = query.limit || historyLimitDefault;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > historyLimitMax)
      throw invalid(`limit must be between 1 and ${historyLimitMax}`, 'limit');
    let cursor: HistoryPosition | undefined;
    let fromMs: number;
    let toMs: number;
    if (query.starting_after) {
      const decoded = decodeCursor(query.starting_after);
      if (decoded.kind !== query.kind)
        throw invalid(`starting_after is a cursor of ${decoded.kind}, not of ${query.kind}`, 'starting_after');
      // Later pages keep the first page's range, so that "now" moving on neither adds nor drops anything.
      ({ fromMs, toMs } = decoded);
      cursor = decoded;
    } else {
      toMs = query.to_ms ?? this.options.clock.now().getTime();
      fromMs = query.from_ms ?? toMs - historyRangeDefaultMs;
      if (fromMs > toMs) throw invalid('from must not be after to', 'from');
      if (toMs - fromMs > historyRangeMaxMs) throw invalid('from and to may be at most 90 days apart', 'from');
    }
    const accounts = await this.accountsFor(customerId, query.account_ids);
    return tracer.startActiveSpan(
      'execution.read_history',
      { attributes: { 'mtx.customer_id': customerId, 'mtx.accounts': accounts.length, 'mtx.history_kind': query.kind } },
      async (span) => {
        try {
          const deadlineMs = this.options.clock.now().getTime() + this.options.readDeadlineMs;
          const answers = await Promise.all(
            accounts.map((account) => this.readAccount(account, query, { fromMs, toMs, limit, deadlineMs, cursor })),
          );
          const pages = answers.flatMap((answer) => (answer.page ? [answer.page] : []));
          const merged = mergeHistoryPages<DealView | OrderView>(pages, limit);
          const statuses = answers.map((answer) => answer.status);
          const notRead = statuses.filter((status) => status.status !== 'ok').length;
          if (notRead > 0) span.setStatus({ code: SpanStatusCode.ERROR, message: `${notRead} account(s) not read` });
          return {
            deals: query.kind === 'deals' ? (merged.data as DealView[]) : [],
            orders: query.kind === 'orders' ? (merged.data as OrderView[]) : [],
            has_more: merged.hasMore,
            next_cursor: merged.next ? encodeCursor({ ...merged.next, kind: query.kind, fromMs, toMs }) : '',
            accounts: statuses,
          };
        } finally {
          span.end();
        }
      },
    );
  }

  private async readAccount(
    account: ResolvedAccount,
    query: HistoryQuery,
    read: { fromMs: number; toMs: number; limit: number; deadlineMs: number; cursor?: HistoryPosition },
  ): Promise<{ page?: AccountHistoryPage<DealView | OrderView>; status: HistoryPageView['accounts'][number] }> {
    const document = account.document;
    const bound = accountBound(read.cursor, document._id);
    const timeoutMs = Math.max(1, read.deadlineMs - this.options.clock.now().getTime());
    const response = await this.options.terminals.request(
      document.platform,
      document._id,
      'history',
      deskCodecs.historyRequest.encode({
        account_id: document._id,
        kind: query.kind,
        from_unix_ms: read.fromMs,
        to_unix_ms: read.toMs,
        symbol: query.symbol ?? '',
        symbol_suffix: document.symbol_suffix,
        limit: read.limit,
        before_unix_ms: bound.beforeMs,
        before_ticket: bound.beforeKey,
        deadline_unix_ms: read.deadlineMs,
      }),
      { timeoutMs },
    );
    const located = { account_id: document._id, platform: document.platform };
    if (response.kind !== 'reply') {
      const status =
        response.kind === 'timeout' || (response.kind === 'service_error' && response.code !== 503) ? 'unknown' : 'unavailable';
      const message =
        response.kind === 'no_responders'
          ? `no ${document.platform} terminal is running for this account`
          : `the terminal did not answer (${response.kind})`;
      return { status: { account_id: document._id, status, message } };
    }
    const reply: HistoryReplyMessage = deskCodecs.historyReply.decode(response.data);
    if (reply.status !== 'ok') return { status: { account_id: document._id, status: 'unavailable', message: reply.message } };
    const items =
      query.kind === 'deals'
        ? reply.deals.map((deal) => {
            const { time_unix_ms, ...rest } = deal;
            const view: DealView = { ...located, ...rest, ticket: Number(rest.ticket), time: iso(time_unix_ms) };
            return { timeMs: Number(time_unix_ms), key: keyOf(deal.ticket, deal.entry, document.platform), view };
          })
        : reply.orders.map((order) => {
            const { time_setup_unix_ms, time_done_unix_ms, ...rest } = order;
            const view: OrderView = { ...located, ...rest, time_setup: iso(time_setup_unix_ms), time_done: iso(time_done_unix_ms) };
            return { timeMs: Number(time_done_unix_ms), key: Number(order.ticket) * 2, view };
          });
    return {
      page: { accountId: document._id, items, more: reply.more, completeAfterMs: Number(reply.complete_after_unix_ms) },
      status: { account_id: document._id, status: 'ok', message: '' },
    };
  }
}

/** The connector's order within an account: the ticket × 2, +1 for the closing half of an MT4 order (history-sources.ts). */
function keyOf(ticket: number, entry: string, platform: Platform): number {
  return Number(ticket) * 2 + (platform === 'mt4' && entry === 'out' ? 1 : 0);
}
