import { connectorCodecs, type LookupEntryMessage, type LookupReplyMessage } from '@mtx/shared/connector/messages';
import { retcode } from '@mtx/shared/trading';
import {
  closeStatusOf,
  legResultOf,
  plainLeg,
  ticketResultOf,
  withRetcode,
  type CloseAccountResult,
  type OrderLegResult,
  type TicketResult,
} from '../domain/results';
import type { UnsettledDocument } from '../store/execution-store';
import type { BatchServiceOptions } from './batch-context';
import type { BatchJournal } from './batch-journal';
import { executionMetrics } from './metrics';

/**
 * How far before its batch's start a lost close account's closes are looked for: the trade server's clock,
 * which stamps the history, may be a little behind this one, and MT times are whole seconds.
 */
const closeLookupSlackMs = 10_000;

/**
 * Reconciliation: every leg (or close account) whose outcome stayed unknown is looked up at the broker by its
 * client id, one lookup per account, until it is found, or proved never executed once past its deadline, or
 * given up after a bound. Each pass first recovers batches a dead process left open.
 */
export class Reconciliation {
  private reconciling: Promise<{ checked: number; settled: number; pending: number }> | undefined;

  constructor(
    private readonly options: BatchServiceOptions,
    private readonly journal: BatchJournal,
  ) {}

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  /** Runs one pass; concurrent callers share the pass in progress, then run their own (so they see fresh state). */
  async reconcile(batchId?: string): Promise<{ checked: number; settled: number; pending: number }> {
    while (this.reconciling) await this.reconciling.catch(() => undefined);
    this.reconciling = this.reconcilePass(batchId).finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  private async reconcilePass(batchId?: string): Promise<{ checked: number; settled: number; pending: number }> {
    await this.journal.recover();
    const documents = await this.options.store.unsettled
      .find(batchId ? { batch_id: batchId } : {})
      .limit(5_000)
      .toArray();
    let settled = 0;
    let pending = 0;
    if (!batchId) {
      // The figure "time to reconcile" alerts on before anything settles: how long the oldest unknown leg has waited.
      const oldestMs = Math.min(...documents.map((document) => document.created_at.getTime()));
      executionMetrics.unsettledOldestAge.record(documents.length > 0 ? Math.max(0, this.nowMs() - oldestMs) : 0);
    }
    const groups = new Map<string, UnsettledDocument[]>();
    for (const document of documents) {
      const key = `${document.batch_id}|${document.account_id}`;
      groups.set(key, [...(groups.get(key) ?? []), document]);
    }
    await Promise.all(
      [...groups.values()].map(async (group) => {
        try {
          const outcome = await this.reconcileGroup(group);
          settled += outcome.settled;
          pending += outcome.pending;
        } catch (error) {
          pending += group.length;
          this.options.logger.error(
            { err: error, batch_id: group[0]!.batch_id },
            'reconciliation of an account failed; retrying on the next pass',
          );
        }
      }),
    );
    return { checked: documents.length, settled, pending };
  }

  private async reconcileGroup(group: UnsettledDocument[]): Promise<{ settled: number; pending: number }> {
    const first = group[0]!;
    const nowMs = this.nowMs();
    const account = (await this.options.registry.resolve([first.account_id])).get(first.account_id);
    if (!account) {
      // The account was disconnected: nobody can ask its broker any more. Give up after the bound.
      for (const document of group) {
        if (document.created_at.getTime() + this.options.config.RECONCILE_GIVE_UP_AFTER_MS < nowMs) {
          this.options.logger.warn(
            { batch_id: document.batch_id, index: document.index },
            'gave up reconciling: the account was disconnected',
          );
          await this.options.store.unsettled.deleteOne({ _id: document._id });
          executionMetrics.reconcileAbandoned.add(1, { 'mtx.reason': 'disconnected' });
        }
      }
      return { settled: 0, pending: group.length };
    }
    const clientIds = group.flatMap((document) => document.client_ids);
    const prefixed = group.filter((document) => document.client_id_prefix !== '');
    const lookups: LookupReplyMessage[] = [];
    // One lookup per account; a close account that never answered is looked up by its prefix, in the window
    // from its batch's start (the connector reads the closes from the terminal's history in that window).
    for (const [position, document] of (prefixed.length > 0 ? prefixed : [undefined]).entries()) {
      const response = await this.options.terminals.request(
        account.document.platform,
        account.document._id,
        'lookup',
        connectorCodecs.lookupRequest.encode({
          account_id: account.document._id,
          client_ids: position === 0 ? clientIds : [],
          client_id_prefix: document?.client_id_prefix ?? '',
          from_unix_ms: document ? document.created_at.getTime() - closeLookupSlackMs : 0,
        }),
        { timeoutMs: this.options.config.EXECUTION_DEADLINE_MS },
      );
      if (response.kind !== 'reply') return { settled: 0, pending: group.length };
      const reply = connectorCodecs.lookupReply.decode(response.data);
      if (!reply.connected) return { settled: 0, pending: group.length };
      lookups.push(reply);
    }
    const entries = new Map<string, LookupEntryMessage>();
    for (const reply of lookups) for (const entry of reply.entries) entries.set(entry.client_id, entry);

    let settled = 0;
    let pending = 0;
    for (const document of group) {
      const pastFence = nowMs > document.deadline_at.getTime() + this.options.config.RECONCILE_SETTLE_AFTER_MS;
      const result =
        document.kind === 'orders'
          ? await this.settleLeg(document, entries, pastFence)
          : await this.settleCloseAccount(document, entries, pastFence);
      if (result) {
        await this.journal.settle(document.batch_id, document.index, result, 'reconciliation');
        executionMetrics.reconcileDuration.record(Math.max(0, nowMs - document.created_at.getTime()), { 'mtx.batch_kind': document.kind });
        settled += 1;
      } else {
        pending += 1;
        if (document.created_at.getTime() + this.options.config.RECONCILE_GIVE_UP_AFTER_MS < nowMs) {
          this.options.logger.warn(
            { batch_id: document.batch_id, index: document.index },
            'gave up reconciling: still unknown at the broker',
          );
          await this.options.store.unsettled.deleteOne({ _id: document._id });
          executionMetrics.reconcileAbandoned.add(1, { 'mtx.reason': 'unknown_at_broker' });
        }
      }
    }
    return { settled, pending };
  }

  private async settleLeg(
    document: UnsettledDocument,
    entries: Map<string, LookupEntryMessage>,
    pastFence: boolean,
  ): Promise<OrderLegResult | undefined> {
    const batch = await this.journal.findBatch(document.batch_id);
    const leg = batch?.legs?.[document.index];
    if (!leg) return undefined;
    const entry = entries.get(leg.client_id);
    // The leg keeps the time its answer took (the unknown one the customer got), not 0.
    const [original] = await this.journal.storedOutcomes(document.batch_id, [document.index], batch);
    const latencyMs = Number((original as OrderLegResult | undefined)?.latency_ms) || 0;
    if (entry?.state === 'done' && entry.leg) {
      const result = legResultOf(leg, entry.leg, latencyMs);
      result.message =
        result.status === 'rejected'
          ? `${entry.leg.message} (found at the broker by reconciliation)`
          : 'found at the broker by reconciliation';
      return result;
    }
    if ((!entry || entry.state === 'not_found') && pastFence) {
      return plainLeg(
        leg,
        'rejected',
        'not executed: the order did not reach the broker before its deadline (checked by reconciliation)',
        latencyMs,
        retcode.TIMEOUT,
      );
    }
    return undefined;
  }

  private async settleCloseAccount(
    document: UnsettledDocument,
    entries: Map<string, LookupEntryMessage>,
    pastFence: boolean,
  ): Promise<CloseAccountResult | undefined> {
    const [stored] = await this.journal.storedOutcomes(document.batch_id, [document.index]);
    const original = stored as CloseAccountResult | undefined;
    if (document.client_id_prefix) {
      const found = [...entries.values()].filter((entry) => entry.client_id.startsWith(document.client_id_prefix));
      if (found.some((entry) => entry.state === 'processing')) return undefined;
      const tickets = found.filter((entry) => entry.state === 'done' && entry.ticket).map((entry) => ticketResultOf(entry.ticket!));
      if (tickets.length === 0 && !pastFence) return undefined;
      const status = tickets.length === 0 ? 'failed' : closeStatusOf(tickets);
      const message =
        tickets.length === 0
          ? 'nothing was closed: no close reached the broker before the deadline (checked by reconciliation)'
          : `settled by reconciliation: ${tickets.length} close(s) found at the broker`;
      return {
        account_id: document.account_id,
        platform: document.platform,
        status,
        matched: tickets.length,
        closed: tickets.filter((ticket) => ticket.status === 'closed').length,
        message,
        latency_ms: original?.latency_ms ?? 0,
        results: tickets,
      };
    }
    if (!original) return undefined;
    const results: TicketResult[] = [];
    for (const ticket of original.results) {
      if (ticket.status !== 'unknown') {
        results.push(ticket);
        continue;
      }
      const clientId = document.client_ids.find((id) => id.endsWith(`-t${ticket.ticket}`));
      const entry = clientId ? entries.get(clientId) : undefined;
      if (entry?.state === 'done' && entry.ticket)
        results.push({ ...ticketResultOf(entry.ticket), message: 'found at the broker by reconciliation' });
      else if ((!entry || entry.state === 'not_found') && pastFence) {
        results.push(
          withRetcode(
            {
              ...ticket,
              status: 'failed' as const,
              message: 'not executed: the close did not reach the broker before its deadline (checked by reconciliation)',
            },
            retcode.TIMEOUT,
          ),
        );
      } else return undefined;
    }
    return {
      ...original,
      status: closeStatusOf(results),
      closed: results.filter((ticket) => ticket.status === 'closed').length,
      results,
      message: 'settled by reconciliation',
    };
  }
}
