import { SpanStatusCode, trace } from '@opentelemetry/api';
import { connectorCodecs } from '@mtx/shared/connector/messages';
import { retcode } from '@mtx/shared/trading';
import type { ResolvedAccount } from './accounts';
import { countOutcomes } from './metrics';
import {
  describeFailure,
  legResultOf,
  plainLeg,
  withSizing,
  withSymbolSuffixHint,
  type OrderLegResult,
  type PlaceOrdersResult,
} from '../domain/results';
import type { TerminalResponse } from '../clients/terminals';
import { validatePlaceOrders, type NormalizedLeg, type PlaceOrdersInput } from '../domain/validation';
import type { BatchDocument, StoredLeg, UnsettledDocument } from '../store/execution-store';
import type { BatchServiceOptions, ResolveOwned } from './batch-context';
import { batchIdFor, listingFigures, type BatchJournal } from './batch-journal';
import { type LegDecision, PreTrade } from './pre-trade';

const tracer = trace.getTracer('mtx-execution');

/**
 * Placing orders: validate the whole batch, write it ahead, send each account's legs to its terminal in one
 * NATS request (all accounts at once), aggregate the replies until the deadline, and store the outcomes. A reply
 * that arrives after the deadline settles its legs later.
 */
export class Placing {
  private readonly preTrade: PreTrade;

  constructor(
    private readonly options: BatchServiceOptions,
    private readonly journal: BatchJournal,
    private readonly resolveOwned: ResolveOwned,
  ) {
    this.preTrade = new PreTrade(options.terminals);
  }

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  /** Places a batch; `batch_id` is the caller's when it retries an Idempotency-Key request. */
  async place(customerId: string, input: PlaceOrdersInput & { batch_id?: string }): Promise<PlaceOrdersResult> {
    const startedMs = this.nowMs();
    const legs = validatePlaceOrders(input, startedMs);
    const accounts = await this.resolveOwned(
      customerId,
      legs.map((leg) => ({ account_id: leg.account_id, param: `orders[${leg.index}].account_id` })),
    );
    const batchId = batchIdFor(input.batch_id);
    const deadlineMs = startedMs + this.options.config.EXECUTION_DEADLINE_MS;
    // Reads only, before the write-ahead, so the journal holds each leg as it will be sent (symbol and volume). They
    // may take half the deadline at most: every account's legs wait for them, and the sends need the other half.
    const decisions = await this.decide(accounts, legs, startedMs + Math.floor(this.options.config.EXECUTION_DEADLINE_MS / 2));
    const storedLegs: StoredLeg[] = legs.map((leg) => ({
      account_id: leg.account_id,
      platform: accounts.get(leg.account_id)!.document.platform,
      client_id: `${batchId}-${leg.index}`,
      symbol: decisions.get(leg.index)?.symbol ?? leg.symbol,
      operation: leg.operation,
      volume: decisions.get(leg.index)?.volume ?? leg.volume,
    }));
    const batch: BatchDocument = {
      _id: batchId,
      customer_id: customerId,
      kind: 'orders',
      created_at: new Date(startedMs),
      deadline_at: new Date(deadlineMs),
      legs: storedLegs,
    };
    await this.journal.writeAhead(batch);
    if (input.batch_id) await this.journal.assertBatchOwner(batchId, customerId, 'orders');

    return tracer.startActiveSpan(
      'execution.fanout',
      { attributes: { 'mtx.customer_id': customerId, 'mtx.batch_id': batchId, 'mtx.batch_kind': 'orders', 'mtx.legs': legs.length } },
      async (span) => {
        try {
          const results = new Array<OrderLegResult>(legs.length);
          const byAccount = new Map<string, NormalizedLeg[]>();
          for (const leg of legs) byAccount.set(leg.account_id, [...(byAccount.get(leg.account_id) ?? []), leg]);
          await Promise.all(
            [...byAccount].map(([accountId, accountLegs]) =>
              this.placeOnAccount(customerId, batchId, deadlineMs, accounts.get(accountId)!, accountLegs, storedLegs, results, decisions),
            ),
          );
          const unsettled: UnsettledDocument[] = [];
          results.forEach((result, index) => {
            if (result.status !== 'unknown') return;
            const leg = storedLegs[index]!;
            unsettled.push({
              _id: `${batchId}:${index}`,
              batch_id: batchId,
              index,
              kind: 'orders',
              customer_id: customerId,
              account_id: leg.account_id,
              platform: leg.platform,
              client_ids: [leg.client_id],
              client_id_prefix: '',
              deadline_at: new Date(deadlineMs),
              created_at: new Date(startedMs),
            });
          });
          countOutcomes(
            'orders',
            storedLegs.map((leg, index) => [leg.platform, results[index]!.status]),
          );
          // The batch's summary and whether it settled, once: answered, and stored with its listing behind the answer.
          const figures = listingFigures('orders', results);
          await this.journal.recordOutcomes(batch, results, unsettled, figures);
          const summary = figures.orders_summary!;
          span.setAttributes({
            'mtx.filled': summary.filled,
            'mtx.placed': summary.placed,
            'mtx.failed': summary.failed,
            'mtx.unknown': summary.unknown,
          });
          if (summary.unknown > 0) span.setStatus({ code: SpanStatusCode.ERROR, message: `${summary.unknown} leg(s) unknown` });
          return { batch_id: batchId, summary, results };
        } finally {
          span.end();
        }
      },
    );
  }

  /** The pre-trade rules' decision for every leg that has one, each account's legs decided at once. */
  private async decide(
    accounts: Map<string, ResolvedAccount>,
    legs: NormalizedLeg[],
    readsDeadlineMs: number,
  ): Promise<Map<number, LegDecision>> {
    const byAccount = new Map<string, NormalizedLeg[]>();
    for (const leg of legs) byAccount.set(leg.account_id, [...(byAccount.get(leg.account_id) ?? []), leg]);
    const decisions = new Map<number, LegDecision>();
    await Promise.all(
      [...byAccount].map(async ([accountId, accountLegs]) => {
        const document = accounts.get(accountId)!.document;
        // A suspended account's legs are refused for that reason alone, without reading anything.
        if (document.billing_status === 'suspended' || !PreTrade.applies(document, accountLegs)) return;
        for (const [index, decision] of await this.preTrade.decide(document, accountLegs, readsDeadlineMs)) decisions.set(index, decision);
      }),
    );
    return decisions;
  }

  private async placeOnAccount(
    customerId: string,
    batchId: string,
    deadlineMs: number,
    account: ResolvedAccount,
    accountLegs: NormalizedLeg[],
    storedLegs: StoredLeg[],
    results: OrderLegResult[],
    decisions: Map<number, LegDecision>,
  ): Promise<void> {
    const refused = accountLegs.filter((leg) => decisions.get(leg.index)?.send === false);
    for (const leg of refused) {
      const decision = decisions.get(leg.index) as LegDecision & { send: false };
      results[leg.index] = withSizing(
        plainLeg(storedLegs[leg.index]!, decision.status, decision.message, 0, decision.retcode),
        decision.sizing,
      );
    }
    const legs = accountLegs.filter((leg) => decisions.get(leg.index)?.send !== false);
    if (legs.length === 0) return;
    const document = account.document;
    const requestStartedMs = this.nowMs();
    const requestStartedAt = performance.now();
    const finish = () => {
      const troubled = legs
        .map((leg) => results[leg.index]!)
        .find((result) => result.status === 'unknown' || result.status === 'unavailable');
      if (!troubled) return;
      this.options.terminals.traceFailedRequest(
        'place',
        document.platform,
        document._id,
        requestStartedAt,
        {
          'mtx.customer_id': customerId,
          'mtx.batch_id': batchId,
          'mtx.leg_index': legs.map((leg) => leg.index),
          'mtx.status': legs.map((leg) => results[leg.index]!.status),
          'mtx.retcode': legs.map((leg) => results[leg.index]!.retcode ?? 0),
        },
        `${troubled.status}: ${troubled.message}`,
      );
    };
    if (document.billing_status === 'suspended') {
      for (const leg of legs)
        results[leg.index] = plainLeg(
          storedLegs[leg.index]!,
          'rejected',
          `not sent: the seat of account ${document._id} is suspended for non-payment; top up the balance to trade again`,
          0,
          retcode.TRADE_DISABLED,
        );
      finish();
      return;
    }
    const payload = connectorCodecs.placeRequest.encode({
      account_id: document._id,
      legs: legs.map((leg) => ({
        client_id: storedLegs[leg.index]!.client_id,
        leg_index: leg.index,
        symbol: storedLegs[leg.index]!.symbol,
        operation: leg.operation,
        volume: storedLegs[leg.index]!.volume,
        price: leg.price,
        slippage: leg.slippage,
        stop_loss: leg.stop_loss,
        take_profit: leg.take_profit,
        stop_limit_price: leg.stop_limit_price,
        expiration: leg.expiration,
        comment: leg.comment,
        expert_id: leg.expert_id,
      })),
      deadline_unix_ms: deadlineMs,
      batch_id: batchId,
    });
    const timeoutMs = Math.max(1, deadlineMs - this.nowMs());
    const response = await this.options.terminals.request(document.platform, document._id, 'place', payload, {
      timeoutMs,
      lateWindowMs: this.options.config.LATE_REPLY_WINDOW_MS,
      onLate: (late) => void this.takeLatePlace(batchId, legs, storedLegs, late, requestStartedMs),
    });
    const latencyMs = this.nowMs() - requestStartedMs;
    if (response.kind === 'reply') {
      const reply = connectorCodecs.placeReply.decode(response.data);
      const byIndex = new Map(reply.results.map((result) => [result.leg_index, result]));
      for (const leg of legs) {
        const message = byIndex.get(leg.index);
        results[leg.index] = message
          ? withSymbolSuffixHint(legResultOf(storedLegs[leg.index]!, message, latencyMs), document.symbol_suffix, document.server)
          : plainLeg(storedLegs[leg.index]!, 'unknown', 'the terminal answered without this leg; it will be reconciled', latencyMs);
      }
    } else {
      const failure = describeFailure(response, document.platform, timeoutMs);
      for (const leg of legs) results[leg.index] = plainLeg(storedLegs[leg.index]!, failure.status, failure.message, latencyMs);
    }
    for (const leg of legs) results[leg.index] = withSizing(results[leg.index]!, decisions.get(leg.index)?.sizing);
    finish();
  }

  private async takeLatePlace(
    batchId: string,
    legs: NormalizedLeg[],
    storedLegs: StoredLeg[],
    response: TerminalResponse,
    startedMs: number,
  ): Promise<void> {
    if (response.kind !== 'reply') return;
    try {
      const reply = connectorCodecs.placeReply.decode(response.data);
      const latencyMs = this.nowMs() - startedMs;
      for (const message of reply.results) {
        if (message.status === 'unknown' || !legs.some((leg) => leg.index === message.leg_index)) continue;
        await this.journal.settle(
          batchId,
          message.leg_index,
          legResultOf(storedLegs[message.leg_index]!, message, latencyMs),
          'late_reply',
        );
      }
    } catch (error) {
      this.options.logger.error({ err: error, batch_id: batchId }, 'late reply could not be stored; reconciliation will settle the legs');
    }
  }
}
