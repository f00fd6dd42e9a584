import { inBatchSpan } from '@mtx/shared/telemetry';
import type { InboxRecordDocument } from '../store/payments-store';
import { creditRecorded, recordTransaction, type RecordedPayment } from './crediting';
import { loadTopup } from './topup-reads';
import type { TopupsState } from './topups-state';
import type { CreditingWorkerOptions } from './topup-types';

export interface CreditingStats {
  /** Records taken from the inbox and credited (or found credited) since start. */
  credited: number;
  /** Records that could not be queued (queue full or stopping); the sweep credits them. */
  deferred: number;
  /** Records a sweep handed to the worker since start. */
  redriven: number;
  /** Age of the oldest record the last sweep saw, 0 when the inbox was empty: what an SRE alerts on. */
  oldestAgeMs: number;
  /** Records the last sweep saw (at most sweepBatchMax). */
  inboxSeen: number;
  queued: number;
}

/**
 * Drains the postback inbox into the wallet. A postback is acknowledged once its inbox record is stored; this
 * worker then records the payment (which decides its amount), credits the wallet in one CreditMany per batch
 * (exactly once: the wallet's entry id), marks each credit done, and only then deletes the inbox records. A
 * crash anywhere in between leaves the inbox record, and the sweep hands it back here after `sweepAgeMs`; every
 * step is idempotent, so a record credited twice over (two replicas, a sweep racing a batch) moves money once.
 */
export class CreditingWorker {
  private readonly queue: InboxRecordDocument[] = [];
  // Ids queued or in a batch here, so the sweep does not hand the same record back while it is being credited.
  private readonly held = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  readonly stats: CreditingStats = { credited: 0, deferred: 0, redriven: 0, oldestAgeMs: 0, inboxSeen: 0, queued: 0 };

  constructor(
    private readonly state: TopupsState,
    private readonly options: CreditingWorkerOptions,
  ) {}

  /** Hands a stored inbox record to the worker; false when it stays for the sweep (queue full, or stopping). */
  offer(record: InboxRecordDocument): boolean {
    if (this.held.has(record._id)) return true;
    if (this.stopped || this.queue.length >= this.options.queueMax) {
      this.stats.deferred += 1;
      return false;
    }
    this.queue.push(record);
    this.held.add(record._id);
    this.stats.queued = this.queue.length;
    this.pump();
    return true;
  }

  /**
   * One sweep pass: reads the oldest inbox records, reports the oldest one's age, and re-drives those older than
   * `sweepAgeMs` that no batch here holds.
   */
  async sweep(): Promise<{ seen: number; redriven: number; oldestAgeMs: number }> {
    const nowMs = this.state.clock.now().getTime();
    const records = await this.state.store.inbox.find({}).sort({ recorded_at: 1 }).limit(this.options.sweepBatchMax).toArray();
    let redriven = 0;
    for (const record of records) {
      if (nowMs - record.recorded_at.getTime() < this.options.sweepAgeMs || this.held.has(record._id)) continue;
      if (!this.offer(record)) break;
      redriven += 1;
    }
    const oldestAgeMs = records.length > 0 ? Math.max(0, nowMs - records[0]!.recorded_at.getTime()) : 0;
    this.stats.redriven += redriven;
    this.stats.oldestAgeMs = oldestAgeMs;
    this.stats.inboxSeen = records.length;
    if (redriven > 0) this.state.logger.warn({ redriven, oldest_age_ms: oldestAgeMs }, 'inbox sweep re-drove postbacks left uncredited');
    return { seen: records.length, redriven, oldestAgeMs };
  }

  /** Resolves once nothing is queued or in flight here (tests and a graceful stop wait on it). */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0 || (this.queue.length > 0 && !this.stopped)) await Promise.allSettled([...this.inFlight]);
  }

  /** Stops taking records and waits for the batches in flight; what is queued stays in the inbox for the sweep. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const record of this.queue.splice(0)) this.held.delete(record._id);
    this.stats.queued = 0;
    await Promise.allSettled([...this.inFlight]);
  }

  private pump(): void {
    while (!this.stopped && this.queue.length > 0 && this.inFlight.size < this.options.inFlightMax) {
      const batch = this.queue.splice(0, this.options.batchMax);
      this.stats.queued = this.queue.length;
      const run: Promise<void> = inBatchSpan(
        'payments',
        'payments.credit_batch',
        { 'mtx.records': batch.length },
        batch.map((record) => record.trace_context),
        () => this.creditBatch(batch),
      )
        .catch((error) => this.state.logger.warn({ err: error, records: batch.length }, 'a crediting batch failed; the sweep retries it'))
        .finally(() => {
          for (const record of batch) this.held.delete(record._id);
          this.inFlight.delete(run);
          this.pump();
        });
      this.inFlight.add(run);
    }
  }

  private async creditBatch(batch: InboxRecordDocument[]): Promise<void> {
    // Payments of one top-up are recorded one after another (each record's running totals build on the last);
    // different top-ups go in parallel and share the store's group commit.
    const byTopup = new Map<number, InboxRecordDocument[]>();
    for (const record of batch) {
      const records = byTopup.get(record.topup_id);
      if (records) records.push(record);
      else byTopup.set(record.topup_id, [record]);
    }
    const payments: Array<{ record: InboxRecordDocument; payment: RecordedPayment }> = [];
    await Promise.all(
      [...byTopup.entries()].map(async ([topupId, records]) => {
        const topup = await loadTopup(this.state, String(topupId));
        if (!topup) {
          this.state.logger.error({ topup_id: topupId, records: records.length }, 'inbox records name a top-up that does not exist');
          return;
        }
        for (const record of records) {
          try {
            const payment = await recordTransaction(this.state, topup, record.provider, {
              transactionId: record.transaction_id,
              amountUnits: record.amount_units,
              status: 'confirmed',
              receivedAt: record.received_at,
            });
            payments.push({ record, payment });
          } catch (error) {
            this.state.logger.warn({ err: error, topup_id: topupId }, 'could not record an inbox payment; the sweep retries it');
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
        { err: error, topup_id: payments[index]!.record.topup_id },
        'the wallet did not take an inbox credit; the sweep retries it',
      );
    const done = payments.filter((_, index) => !failures.has(index)).map((entry) => entry.record._id);
    if (done.length === 0) return;
    // One delete command of one `_id` statement per record: FerretDB answers each from the `_id` index, where a
    // single `$in` filter would read the whole inbox (all of it, under a backlog) for every batch.
    await this.state.writeGate.run(() =>
      this.state.store.inbox.bulkWrite(
        done.map((id) => ({ deleteOne: { filter: { _id: id } } })),
        { ordered: false },
      ),
    );
    this.stats.credited += done.length;
  }
}
