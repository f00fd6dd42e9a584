import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Clock } from '@mtx/shared/clock';
import { connectorCodecs, type OpenPositionMessage } from '@mtx/shared/connector/messages';
import { AppError } from '@mtx/shared/errors';
import type { AccountRegistry, ResolvedAccount } from './accounts';
import type { TerminalClient, TerminalResponse } from '../clients/terminals';
import { closeAccountsMax, validatePositionsQuery, type PositionsQuery, type Selector } from '../domain/validation';
import type { Platform } from '../store/execution-store';

const tracer = trace.getTracer('mtx-execution');

/** A position as the API shows it: the connector's, with the open time as an ISO timestamp. */
export type PositionView = Omit<OpenPositionMessage, 'opened_at_unix_ms'> & { opened_at: string };

export interface AccountPositionsView {
  account_id: string;
  platform: Platform;
  status: 'ok' | 'unavailable' | 'unknown';
  message: string;
  positions: PositionView[];
  latency_ms: number;
}

export interface PositionsView {
  results: AccountPositionsView[];
  summary: { accounts: number; positions: number; unavailable: number; unknown: number };
}

export interface AccountStateView {
  account_id: string;
  platform: Platform;
  connected: boolean;
  reason: string;
  message: string;
  server: string;
  currency?: string;
  leverage?: number;
  balance?: number;
  equity?: number;
  margin?: number;
  free_margin?: number;
  margin_level?: number;
  profit?: number;
  server_time?: string;
  margin_mode?: string;
  trade_allowed?: boolean;
  latency_ms: number;
}

export interface PortfolioOptions {
  registry: AccountRegistry;
  terminals: TerminalClient;
  clock: Clock;
  /** How long a read waits for the terminals; an account without a reply by then is `unknown`. */
  readDeadlineMs: number;
}

function positionView(message: OpenPositionMessage): PositionView {
  return {
    ticket: Number(message.ticket),
    symbol: message.symbol,
    type: message.type,
    kind: message.kind,
    volume: message.volume,
    open_price: message.open_price,
    current_price: message.current_price,
    stop_loss: message.stop_loss,
    take_profit: message.take_profit,
    profit: message.profit,
    swap: message.swap,
    magic: Number(message.magic),
    comment: message.comment,
    opened_at: new Date(Number(message.opened_at_unix_ms)).toISOString(),
  };
}

/** Why a read got no answer, in the words of an account's read status. */
function readFailure(response: Exclude<TerminalResponse, { kind: 'reply' }>, platform: Platform, timeoutMs: number) {
  switch (response.kind) {
    case 'no_responders':
      return { status: 'unavailable' as const, message: `no ${platform} terminal is running for this account` };
    case 'timeout':
      return { status: 'unknown' as const, message: `no reply from the terminal within ${timeoutMs} ms` };
    case 'service_error':
      return {
        status: response.code === 503 ? ('unavailable' as const) : ('unknown' as const),
        message: `the terminal could not answer (${response.message})`,
      };
  }
}

/**
 * The portfolio reads: what is open on the customer's accounts (through each terminal, with the close selector,
 * so a read lists what the same close would take) and an account's figures. Nothing is stored: a terminal's
 * answer is the truth at that moment, and one that does not answer in time is reported per account.
 */
export class Portfolio {
  constructor(private readonly options: PortfolioOptions) {}

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  async positions(customerId: string, query: PositionsQuery): Promise<PositionsView> {
    const { accountIds, selector } = validatePositionsQuery(query);
    let ids = accountIds;
    if (ids.length === 0) {
      ids = (await this.options.registry.list(customerId)).map((account) => account.id);
      if (ids.length > closeAccountsMax)
        throw new AppError(
          'too_many_accounts',
          `this customer has ${ids.length} accounts and a positions read covers at most ${closeAccountsMax}: name them with account_id`,
          { param: 'account_id' },
        );
    }
    const accounts = await this.options.registry.resolveOwned(
      customerId,
      ids.map((id) => ({ account_id: id, param: 'account_id' })),
    );
    return tracer.startActiveSpan(
      'execution.read_positions',
      { attributes: { 'mtx.customer_id': customerId, 'mtx.accounts': ids.length } },
      async (span) => {
        try {
          const deadlineMs = this.nowMs() + this.options.readDeadlineMs;
          const results = await Promise.all(ids.map((id) => this.positionsOf(accounts.get(id)!, selector, deadlineMs)));
          const summary = {
            accounts: results.length,
            positions: results.reduce((sum, result) => sum + result.positions.length, 0),
            unavailable: results.filter((result) => result.status === 'unavailable').length,
            unknown: results.filter((result) => result.status === 'unknown').length,
          };
          span.setAttributes({
            'mtx.positions': summary.positions,
            'mtx.unavailable': summary.unavailable,
            'mtx.unknown': summary.unknown,
          });
          if (summary.unavailable + summary.unknown > 0)
            span.setStatus({ code: SpanStatusCode.ERROR, message: `${summary.unavailable + summary.unknown} account(s) not read` });
          return { results, summary };
        } finally {
          span.end();
        }
      },
    );
  }

  private async positionsOf(account: ResolvedAccount, selector: Selector, deadlineMs: number): Promise<AccountPositionsView> {
    const document = account.document;
    const startedMs = this.nowMs();
    const timeoutMs = Math.max(1, deadlineMs - startedMs);
    const response = await this.options.terminals.request(
      document.platform,
      document._id,
      'positions',
      connectorCodecs.positionsRequest.encode({
        account_id: document._id,
        selector,
        deadline_unix_ms: deadlineMs,
        symbol_suffix: document.symbol_suffix,
      }),
      { timeoutMs },
    );
    const base = { account_id: document._id, platform: document.platform, latency_ms: this.nowMs() - startedMs };
    if (response.kind !== 'reply') return { ...base, ...readFailure(response, document.platform, timeoutMs), positions: [] };
    const reply = connectorCodecs.positionsReply.decode(response.data);
    return {
      ...base,
      status: reply.status === 'ok' ? 'ok' : 'unavailable',
      message: reply.message,
      positions: reply.positions.map(positionView),
    };
  }

  async state(customerId: string, accountId: string): Promise<AccountStateView> {
    const resolved = /^acc_[0-9A-Za-z]{1,64}$/.test(accountId)
      ? (await this.options.registry.resolve([accountId])).get(accountId)
      : undefined;
    // Another customer's account is reported exactly like one that does not exist.
    if (!resolved || resolved.document.customer_id !== customerId)
      throw new AppError('not_found', `no account ${accountId}`, { param: 'account_id' });
    const document = resolved.document;
    const startedMs = this.nowMs();
    const timeoutMs = this.options.readDeadlineMs;
    const response = await this.options.terminals.request(
      document.platform,
      document._id,
      'state',
      connectorCodecs.stateRequest.encode({ account_id: document._id }),
      { timeoutMs },
    );
    // No connector subscribes to an account whose terminal is attached nowhere (docs/terminal-bridge.md): that is
    // the account's state, not a failure to read it. A timeout or a refusal is: 503.
    if (response.kind === 'no_responders')
      return {
        account_id: document._id,
        platform: document.platform,
        connected: false,
        reason: 'no_connection',
        message: `no ${document.platform} terminal is attached for this account`,
        server: document.server,
        latency_ms: this.nowMs() - startedMs,
      };
    if (response.kind !== 'reply') {
      const failure = readFailure(response, document.platform, timeoutMs);
      throw new AppError('unavailable', `the state of account ${document._id} could not be read: ${failure.message}`);
    }
    const reply = connectorCodecs.stateReply.decode(response.data);
    const view: AccountStateView = {
      account_id: document._id,
      platform: document.platform,
      connected: reply.connected,
      reason: reply.reason,
      message: reply.message,
      server: reply.server || document.server,
      latency_ms: this.nowMs() - startedMs,
    };
    if (!reply.connected) return view;
    return {
      ...view,
      currency: reply.currency,
      leverage: reply.leverage,
      balance: reply.balance,
      equity: reply.equity,
      margin: reply.margin,
      free_margin: reply.free_margin,
      ...(reply.margin > 0 ? { margin_level: reply.margin_level } : {}),
      profit: reply.profit,
      server_time: new Date(Number(reply.server_time_unix_ms)).toISOString(),
      margin_mode: reply.margin_mode,
      trade_allowed: reply.trade_allowed,
    };
  }
}
