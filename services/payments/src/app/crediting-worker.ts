import { createHistogram, instruments } from '@mtx/shared/instruments';
import { inBatchSpan } from '@mtx/shared/telemetry';
import type { InboxDelivery } from '../clients/inbox';
import { creditRecorded, recordTransaction, type RecordedPayment } from './crediting';
import { topupOfRecord } from './topup-reads';
import type { TopupsState } from './topups-state';
import type { CreditingWorkerOptions } from './topup-types';

/** The first retry of a failed credit; each later one waits twice as long, up to the sweep interval. */
const retryFirstAfterMs = 100;

/** Acknowledgement to credit: `recorded_at` is stamped as the record is stored, just before the 200 goes out. */
const creditLag = createHistogram(instruments.paymentsCreditLag);

export interface CreditingStats {
  /** Records taken from the inbox and credited (or found credited) since start. */
  credited: number;
  /** Records handed back at once because this worker was stopping; the inbox delivers them to another replica. */
  released: number;
  /**
   * Age of the oldest unsettled record at the last check, 0 when none: what an SRE alerts on. Undefined until
   * the first check: a replica that has not looked yet reports no sample rather than a 0 that reads as "drained".
   */
  oldestAgeMs: number | undefined;
  queued: number;
}

/**
 * Drains the postback inbox into the wallet. A postback is acknowledged once its inbox record is stored; this
 * worker then records the payment (which decides its amount), credits the wallet in one CreditMany per batch
 * (exactly once: the wallet's entry id), marks each credit done, and only then settles the inbox records. A
 * crash anywhere in between leaves the record unsettled, and the inbox delivers it again after its redelivery
 * delay (the sweep); every step is idempotent, so a record credited twice over (two replicas, a redelivery
 * racing a batch) moves money once.
 */
export class CreditingWorker {
  private readonly queue: InboxDelivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  /** When the last batch went (performance.now()): the next one waits for more records until lingerMs after it. */
  private lastBatchAtMs = Number.NEGATIVE_INFINITY;
  readonly stats: CreditingStats = { credited: 0, released: 0, oldestAgeMs: undefined, queued: 0 };

  constructor(
    private readonly state: TopupsState,
    private readonly options: CreditingWorkerOptions,
  ) {}

  /** Takes the inbox's deliveries from now on. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.state.options.inbox.deliver((delivery) => this.offer(delivery));
  }

  /** Hands a delivered record to the worker (the inbox bounds how many are unsettled at once). */
  offer(delivery: InboxDelivery): void {
    if (this.stopped) {
      delivery.release();
      this.stats.released += 1;
      return;
    }
    this.queue.push(delivery);
    this.stats.queued = this.queue.length;
    this.pump();
  }

  /** Refreshes the oldest unsettled record's age (the metric); run on the sweep interval. */
  async check(): Promise<{ oldestAgeMs: number }> {
    const oldestAgeMs = await this.state.options.inbox.oldestUnsettledAgeMs();
    this.stats.oldestAgeMs = oldestAgeMs;
    if (oldestAgeMs > this.options.staleAfterMs)
      this.state.logger.warn({ oldest_age_ms: oldestAgeMs }, 'postbacks recorded and not credited yet; the inbox redelivers them');
    return { oldestAgeMs };
  }

  /** Resolves once nothing is queued or in flight here (tests and a graceful stop wait on it). */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0 || (this.queue.length > 0 && !this.stopped)) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      // Records waiting out the linger: the batch goes within lingerMs.
      else await new Promise((resolve) => setTimeout(resolve, this.options.lingerMs ?? 0));
    }
  }

  /**
   * Stops taking records: what is queued goes back to the inbox at once (another replica takes it), the batches
   * in flight finish and settle, and only then do the inbox's deliveries stop.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.stats.released += this.queue.length;
    for (const delivery of this.queue.splice(0)) delivery.release();
    this.stats.queued = 0;
    await Promise.allSettled([...this.inFlight]);
    await this.state.options.inbox.stop();
  }

  private pump(): void {
    while (!this.stopped && this.queue.length > 0 && this.inFlight.size < this.options.inFlightMax) {
      if (this.lingering()) return;
      const batch = this.queue.splice(0, this.options.batchMax);
      this.lastBatchAtMs = performance.now();
      this.stats.queued = this.queue.length;
      const run: Promise<void> = inBatchSpan(
        'payments',
        'payments.credit_batch',
        { 'mtx.records': batch.length },
        batch.map((delivery) => delivery.record.trace_context),
        () => this.creditBatch(batch),
      )
        .catch((error) =>
          this.state.logger.warn({ err: error, records: batch.length }, 'a crediting batch failed; the inbox redelivers it'),
        )
        .finally(() => {
          // What the batch did not settle (a record or a credit that failed) comes back soon after a first
          // failure and then less often: a short wallet outage costs little delay, a long one little work.
          for (const delivery of batch)
            delivery.release(Math.min(this.options.retryAfterMs, retryFirstAfterMs * 2 ** Math.min(16, delivery.attempt - 1)));
          this.inFlight.delete(run);
          this.pump();
        });
      this.inFlight.add(run);
    }
  }

  /**
   * Whether the next batch waits for more records. Each batch costs about the same CreditMany, store commands and
   * wallet follow-ups whatever its size, so under load a batch that waits a few milliseconds carries several times
   * the records for the same work. Batches go at most one per `lingerMs` (a full one at once): a postback after a
   * quiet spell is credited without waiting, and under load each waits at most `lingerMs` more.
   */
  private lingering(): boolean {
    const lingerMs = this.options.lingerMs ?? 0;
    if (lingerMs <= 0 || this.queue.length >= this.options.batchMax) return false;
    const waitMs = this.lastBatchAtMs + lingerMs - performance.now();
    if (waitMs <= 0) return false;
    this.lingerTimer ??= setTimeout(() => {
      this.lingerTimer = undefined;
      this.pump();
    }, waitMs);
    return true;
  }

  private async creditBatch(batch: InboxDelivery[]): Promise<void> {
    // Payments of one top-up are recorded one after another (each record's running totals build on the last);
    // different top-ups go in parallel and share the store's group commit.
    const byTopup = new Map<number, InboxDelivery[]>();
    for (const delivery of batch) {
      const deliveries = byTopup.get(delivery.record.topup_id);
      if (deliveries) deliveries.push(delivery);
      else byTopup.set(delivery.record.topup_id, [delivery]);
    }
    const payments: Array<{ delivery: InboxDelivery; payment: RecordedPayment }> = [];
    await Promise.all(
      [...byTopup.entries()].map(async ([topupId, deliveries]) => {
        const topup = await topupOfRecord(this.state, topupId, deliveries[0]!.record.topup);
        if (!topup) {
          this.state.logger.error({ topup_id: topupId, records: deliveries.length }, 'inbox records name a top-up that does not exist');
          return;
        }
        for (const delivery of deliveries) {
          const { record } = delivery;
          try {
            const payment = await recordTransaction(this.state, topup, record.provider, {
              transactionId: record.transaction_id,
              amountUnits: record.amount_units,
              receivedAt: new Date(record.received_at),
              ...(record.after_expiration !== undefined ? { afterExpiration: record.after_expiration } : {}),
              ...(record.cumulative_of !== undefined ? { cumulativeOf: record.cumulative_of } : {}),
            });
            payments.push({ delivery, payment });
          } catch (error) {
            this.state.logger.warn({ err: error, topup_id: topupId }, 'could not record an inbox payment; the inbox redelivers it');
          }
        }
      }),
    );
    if (payments.length === 0) return;
    const { failures } = await creditRecorded(
      this.state,
      payments.map((entry) => entry.payment),
    );
    for (const [index, error] of failures)
      this.state.logger.warn(
        { err: error, topup_id: payments[index]!.delivery.record.topup_id },
        'the wallet did not take an inbox credit; the inbox redelivers it',
      );
    const done = payments.filter((_, index) => !failures.has(index));
    const nowMs = Date.now();
    for (const { delivery } of done) {
      delivery.settle();
      creditLag.record(Math.max(0, nowMs - Date.parse(delivery.record.recorded_at)), { 'mtx.provider': delivery.record.provider });
    }
    this.stats.credited += done.length;
  }
}
