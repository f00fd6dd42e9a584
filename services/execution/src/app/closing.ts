import { SpanStatusCode, trace } from '@opentelemetry/api';
import { connectorCodecs, type CloseAccountStatus } from '@mtx/shared/connector/messages';
import { AppError } from '@mtx/shared/errors';
import type { ResolvedAccount } from './accounts';
import { countOutcomes } from './metrics';
import { closeResultOf, describeFailure, plainClose, type CloseAccountResult, type CloseOrdersResult } from '../domain/results';
import type { TerminalResponse } from '../clients/terminals';
import { validateCloseOrders, type CloseOrdersInput, type NormalizedCloseAccount } from '../domain/validation';
import type { BatchDocument, Platform, UnsettledDocument } from '../store/execution-store';
import type { BatchServiceOptions, ResolveOwned } from './batch-context';
import { batchIdFor, listingFigures, type BatchJournal } from './batch-journal';

const tracer = trace.getTracer('mtx-execution');

/**
 * Closing by selector: validate, optionally refuse up front when an account has no reachable terminal, write the
 * batch ahead, send one close request per account (each terminal looks its account up once and closes every
 * match), aggregate until the deadline and store the outcomes.
 */
export class Closing {
  constructor(
    private readonly options: BatchServiceOptions,
    private readonly journal: BatchJournal,
    private readonly resolveOwned: ResolveOwned,
  ) {}

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  private async unreachable(accounts: ResolvedAccount[]): Promise<string[]> {
    const checks = await Promise.all(
      accounts.map(async (account) => {
        const document = account.document;
        const response = await this.options.terminals.request(
          document.platform,
          document._id,
          'ping',
          connectorCodecs.pingRequest.encode({
            account_id: document._id,
          }),
          { timeoutMs: this.options.config.PING_DEADLINE_MS },
        );
        const reachable = response.kind === 'reply' && connectorCodecs.pingReply.decode(response.data).connected;
        return reachable ? undefined : document._id;
      }),
    );
    return checks.filter((id): id is string => id !== undefined);
  }

  /** Closes by selector or tickets; `batch_id` is the caller's when it retries an Idempotency-Key request. */
  async close(
    customerId: string,
    input: CloseOrdersInput & { require_reachable?: boolean; batch_id?: string },
  ): Promise<CloseOrdersResult> {
    const startedMs = this.nowMs();
    const entries = validateCloseOrders(input);
    const accounts = await this.resolveOwned(
      customerId,
      entries.map((entry) => ({ account_id: entry.account_id, param: `accounts[${entry.index}].account_id` })),
    );
    if (input.require_reachable) {
      const unreachable = await this.unreachable(entries.map((entry) => accounts.get(entry.account_id)!));
      if (unreachable.length > 0) {
        throw new AppError('accounts_unreachable', `${unreachable.length} account(s) have no reachable terminal; nothing was sent`, {
          details: { account_ids: unreachable },
        });
      }
    }
    const batchId = batchIdFor(input.batch_id);
    const deadlineMs = this.nowMs() + this.options.config.EXECUTION_DEADLINE_MS;
    const stored = entries.map((entry) => ({
      account_id: entry.account_id,
      platform: accounts.get(entry.account_id)!.document.platform,
      client_id_base: `${batchId}-a${entry.index}`,
    }));
    const batch: BatchDocument = {
      _id: batchId,
      customer_id: customerId,
      kind: 'close',
      created_at: new Date(startedMs),
      deadline_at: new Date(deadlineMs),
      accounts: stored,
    };
    await this.journal.writeAhead(batch);
    if (input.batch_id) await this.journal.assertBatchOwner(batchId, customerId, 'close');

    return tracer.startActiveSpan(
      'execution.fanout',
      { attributes: { 'mtx.customer_id': customerId, 'mtx.batch_id': batchId, 'mtx.batch_kind': 'close', 'mtx.accounts': entries.length } },
      async (span) => {
        try {
          const results = await Promise.all(
            entries.map((entry) =>
              this.closeOnAccount(
                customerId,
                batchId,
                deadlineMs,
                accounts.get(entry.account_id)!,
                entry,
                stored[entry.index]!.client_id_base,
              ),
            ),
          );
          const unsettled: UnsettledDocument[] = [];
          results.forEach((result, index) => {
            const unknownTickets = result.results.filter((ticket) => ticket.status === 'unknown');
            if (result.status !== 'unknown' && unknownTickets.length === 0) return;
            const base = stored[index]!;
            const wholeAccount = result.results.length === 0;
            unsettled.push({
              _id: `${batchId}:${index}`,
              batch_id: batchId,
              index,
              kind: 'close',
              customer_id: customerId,
              account_id: base.account_id,
              platform: base.platform,
              client_ids: wholeAccount ? [] : unknownTickets.map((ticket) => `${base.client_id_base}-t${ticket.ticket}`),
              client_id_prefix: wholeAccount ? `${base.client_id_base}-` : '',
              deadline_at: new Date(deadlineMs),
              created_at: new Date(startedMs),
            });
          });
          // The batch's summary and whether it settled, once: answered, and stored with its listing behind the answer.
          const figures = listingFigures('close', results);
          await this.journal.recordOutcomes(batch, results, unsettled, figures);
          const summary = figures.close_summary!;
          countOutcomes(
            'close',
            results.map((account) => [account.platform, account.status]),
          );
          countOutcomes(
            'close.ticket',
            results.flatMap((account) => account.results.map((ticket) => [account.platform, ticket.status] as [string, string])),
          );
          span.setAttributes({
            'mtx.matched': summary.matched,
            'mtx.closed': summary.closed,
            'mtx.failed': summary.failed,
            'mtx.unknown': summary.unknown,
            'mtx.accounts_unknown': summary.accounts_unknown,
          });
          if (summary.accounts_unknown > 0 || summary.unknown > 0)
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'some closes are unknown' });
          return { batch_id: batchId, summary, results };
        } finally {
          span.end();
        }
      },
    );
  }

  private async closeOnAccount(
    customerId: string,
    batchId: string,
    deadlineMs: number,
    account: ResolvedAccount,
    entry: NormalizedCloseAccount,
    clientIdBase: string,
  ): Promise<CloseAccountResult> {
    const document = account.document;
    const startedMs = this.nowMs();
    const startedAt = performance.now();
    const payload = connectorCodecs.closeRequest.encode({
      account_id: document._id,
      selector: entry.selector,
      tickets: entry.tickets,
      volume: entry.volume,
      slippage: entry.slippage,
      client_id_base: clientIdBase,
      deadline_unix_ms: deadlineMs,
      closes_max: 20,
      batch_id: batchId,
      symbol_suffix: document.symbol_suffix,
    });
    const timeoutMs = Math.max(1, deadlineMs - startedMs);
    const response = await this.options.terminals.request(document.platform, document._id, 'close', payload, {
      timeoutMs,
      lateWindowMs: this.options.config.LATE_REPLY_WINDOW_MS,
      onLate: (late) => void this.takeLateClose(batchId, entry.index, document._id, document.platform, late, startedMs),
    });
    const latencyMs = this.nowMs() - startedMs;
    let result: CloseAccountResult;
    if (response.kind === 'reply') {
      result = closeResultOf(document._id, document.platform, connectorCodecs.closeReply.decode(response.data), latencyMs);
    } else {
      const failure = describeFailure(response, document.platform, timeoutMs);
      const status: CloseAccountStatus = failure.status === 'rejected' ? 'failed' : failure.status;
      result = plainClose(
        document._id,
        document.platform,
        status,
        failure.message.replace('the order may have executed', 'closes may have executed'),
        latencyMs,
      );
    }
    if (result.status === 'unknown' || result.status === 'unavailable') {
      this.options.terminals.traceFailedRequest(
        'close',
        document.platform,
        document._id,
        startedAt,
        {
          'mtx.customer_id': customerId,
          'mtx.batch_id': batchId,
          'mtx.leg_index': entry.index,
          'mtx.status': result.status,
          'mtx.retcode': result.results.map((ticket) => ticket.retcode ?? 0),
        },
        `${result.status}: ${result.message}`,
      );
    }
    return result;
  }

  private async takeLateClose(
    batchId: string,
    index: number,
    accountId: string,
    platform: Platform,
    response: TerminalResponse,
    startedMs: number,
  ): Promise<void> {
    if (response.kind !== 'reply') return;
    try {
      const result = closeResultOf(accountId, platform, connectorCodecs.closeReply.decode(response.data), this.nowMs() - startedMs);
      if (result.status === 'unknown') return;
      await this.journal.settle(batchId, index, result, 'late_reply');
    } catch (error) {
      this.options.logger.error({ err: error, batch_id: batchId }, 'late close reply could not be stored; reconciliation will settle it');
    }
  }
}
