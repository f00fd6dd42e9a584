import { SpanStatusCode, trace } from '@opentelemetry/api';
import { deskCodecs } from '@mtx/shared/connector/desk-messages';
import type { ResolvedAccount } from './accounts';
import { countOutcomes } from './metrics';
import type { BatchServiceOptions, ResolveOwned } from './batch-context';
import { batchIdFor } from './batch-journal';
import { describeFailure } from '../domain/results';
import { type ModifyOrdersInput, type NormalizedChange, validateModifyOrders } from '../domain/modify-validation';
import { modifyResultOf, modifySummaryOf, plainModify, type ModifyAccountResult, type ModifyOrdersResult } from '../domain/modify-results';
import type { NormalizedCloseAccount } from '../domain/validation';

const tracer = trace.getTracer('mtx-execution');

/** Matches beyond this per account come back `skipped` (the close's cap). */
export const modifiesPerAccountMax = 20;

/**
 * Modifying by selector: the close's validation, accounts and caps, one request per account carrying the
 * message's claim key `<batch_id>-m<index>` (a retry with the same batch id, an Idempotency-Key retry, sends
 * nothing again), aggregated until the deadline. Nothing is written ahead: a modify carries no client id to the
 * trade server, so there is nothing to reconcile by; an account without an answer is `unknown`, and its tickets'
 * values are what GET /v1/positions reads.
 */
export class Modifying {
  constructor(
    private readonly options: BatchServiceOptions,
    private readonly resolveOwned: ResolveOwned,
  ) {}

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  async modify(customerId: string, input: ModifyOrdersInput & { batch_id?: string }): Promise<ModifyOrdersResult> {
    const { accounts: entries, change } = validateModifyOrders(input, this.nowMs());
    const accounts = await this.resolveOwned(
      customerId,
      entries.map((entry) => ({ account_id: entry.account_id, param: `accounts[${entry.index}].account_id` })),
    );
    const batchId = batchIdFor(input.batch_id);
    const deadlineMs = this.nowMs() + this.options.config.EXECUTION_DEADLINE_MS;
    return tracer.startActiveSpan(
      'execution.fanout',
      {
        attributes: { 'mtx.customer_id': customerId, 'mtx.batch_id': batchId, 'mtx.batch_kind': 'modify', 'mtx.accounts': entries.length },
      },
      async (span) => {
        try {
          const results = await Promise.all(
            entries.map((entry) => this.modifyOnAccount(batchId, deadlineMs, accounts.get(entry.account_id)!, entry, change)),
          );
          const summary = modifySummaryOf(results);
          countOutcomes(
            'modify',
            results.map((account) => [account.platform, account.status]),
          );
          span.setAttributes({ 'mtx.matched': summary.matched, 'mtx.modified': summary.modified, 'mtx.unknown': summary.unknown });
          if (summary.accounts_unknown > 0 || summary.unknown > 0)
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'some modifies are unknown' });
          return { batch_id: batchId, summary, results };
        } finally {
          span.end();
        }
      },
    );
  }

  private async modifyOnAccount(
    batchId: string,
    deadlineMs: number,
    account: ResolvedAccount,
    entry: NormalizedCloseAccount,
    change: NormalizedChange,
  ): Promise<ModifyAccountResult> {
    const document = account.document;
    const startedMs = this.nowMs();
    const payload = deskCodecs.modifyRequest.encode({
      account_id: document._id,
      selector: entry.selector,
      tickets: entry.tickets,
      change,
      client_id_base: `${batchId}-m${entry.index}`,
      deadline_unix_ms: deadlineMs,
      modifies_max: modifiesPerAccountMax,
      batch_id: batchId,
      symbol_suffix: document.symbol_suffix,
    });
    const timeoutMs = Math.max(1, deadlineMs - startedMs);
    const response = await this.options.terminals.request(document.platform, document._id, 'modify', payload, { timeoutMs });
    const latencyMs = this.nowMs() - startedMs;
    if (response.kind === 'reply')
      return modifyResultOf(document._id, document.platform, deskCodecs.modifyReply.decode(response.data), latencyMs);
    const failure = describeFailure(response, document.platform, timeoutMs);
    const status = failure.status === 'unknown' ? 'unknown' : 'unavailable';
    // A modify cannot be reconciled by client id: the positions read shows whether it took effect.
    const message =
      status === 'unknown'
        ? `${failure.message.split(';')[0]}; modifies may have taken effect (GET /v1/positions shows them)`
        : failure.message;
    return plainModify(document._id, document.platform, status, message, latencyMs);
  }
}
