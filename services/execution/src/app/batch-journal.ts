import { customerEvent } from '@mtx/shared/customer-events';
import { AppError } from '@mtx/shared/errors';
import { isDuplicateKeyError } from '@mtx/shared/mongo';
import { plainClose, plainLeg, type BatchView, type CloseAccountResult, type OrderLegResult } from '../domain/results';
import { randomBase62 } from '../domain/secrets';
import {
  batchOfMarker,
  findOutcomes,
  type BatchDocument,
  type OpenBatchDocument,
  type OutcomeDocument,
  type StoredResult,
  type UnsettledDocument,
} from '../store/execution-store';
import { GroupWriter, type InsertOutcome } from '../store/group-writer';
import type { BatchServiceOptions } from './batch-context';
import { BatchListing, type BatchListItem, type ListBatchesQuery } from './batch-listing';
import { insertAll, listingFigures, unsettledRow, type ListingFigures } from './batch-records';

export { listingFigures, type ListingFigures } from './batch-records';

const requestedBatchIdPattern = /^bat_[0-9A-Za-z]{20}$/;
/** How long an open marker's delete waits for others to share its command. */
const openMarkerDeleteLingerMs = 100;
/**
 * How long a finished batch's insert (and its listing's) waits for others to share its command: nobody waits on
 * them but a read of that batch in this process. Long enough that one client's batches in a row (one every
 * 8–10 ms) and batches finishing spread out (a terminal's legs one after another) share commands: a write (and the
 * `batch.settled` it lets out) otherwise lands in the next batch's fan-out and slows it.
 */
const outcomeInsertLingerMs = 50;

/** The caller's batch id, when it chose one (a retry of an Idempotency-Key request reuses it), else a fresh one. */
export function batchIdFor(requested: string | undefined): string {
  if (requested === undefined || requested === '') return `bat_${randomBase62(20)}`;
  if (!requestedBatchIdPattern.test(requested))
    throw new AppError('invalid_request', 'batch_id must be bat_ followed by 20 letters or digits', { param: 'batch_id' });
  return requested;
}

/**
 * The batch journal: a batch is written ahead before anything is sent (with an open marker), its outcomes once
 * the fan-out is over (and the marker removed), late replies and reconciliation as settlements, and a recovery
 * pass turns every batch left open by a dead process into unknown legs to reconcile. Writes of concurrent
 * batches share commands (GroupWriter).
 */
export class BatchJournal {
  private readonly batchWriter: GroupWriter<BatchDocument>;
  private readonly openWriter: GroupWriter<OpenBatchDocument>;
  private readonly openDeleter: GroupWriter<OpenBatchDocument>;
  private readonly outcomeWriter: GroupWriter<OutcomeDocument>;
  private readonly unsettledWriter: GroupWriter<UnsettledDocument>;
  private readonly listing: BatchListing;
  /**
   * Outcomes being stored after their batch was answered, by batch id: a read of the batch (or of its customer's
   * listing) in this process waits for them, so an answer is never followed here by a view that lacks it.
   */
  private readonly storing = new Map<string, { customerId: string; done: Promise<void> }>();

  constructor(private readonly options: BatchServiceOptions) {
    // The write-ahead (the batch in flight, whole) and the stored batch with its outcomes keep their database spans
    // (a batch's durable record before and after the fan-out); the marker's removal makes none
    // (GroupCommitOptions.untraced). The stored batch goes behind the answer with the outcomes, and waits for
    // other batches' as they do.
    this.batchWriter = new GroupWriter(options.store.batches, { insertLingerMs: outcomeInsertLingerMs });
    this.openWriter = new GroupWriter(options.store.openBatches);
    // A marker is removed after the answer and nobody waits for it (recovery removes one whose batch has its
    // outcomes), so its delete may wait for others: under light load one command per batch otherwise.
    this.openDeleter = new GroupWriter(options.store.openBatches, { deleteLingerMs: openMarkerDeleteLingerMs, untraced: true });
    this.outcomeWriter = new GroupWriter(options.store.outcomes, { insertLingerMs: outcomeInsertLingerMs });
    this.unsettledWriter = new GroupWriter(options.store.unsettled, { insertLingerMs: outcomeInsertLingerMs });
    this.listing = new BatchListing({
      store: options.store,
      logger: options.logger,
      view: (customerId, batchId) => this.view(customerId, batchId),
      recordedWithinMs: options.config.EXECUTION_DEADLINE_MS + options.config.RECOVERY_AFTER_MS + 60_000,
      insertLingerMs: outcomeInsertLingerMs,
    });
  }

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  /**
   * The write-ahead: the batch, whole, as one document in flight (one insert on the answer's path). Idempotent: a
   * retried batch id still in flight finds its document there (assertBatchOwner then says whose it is).
   */
  async writeAhead(batch: BatchDocument): Promise<void> {
    try {
      await this.openWriter.insert([batch]);
    } catch (error) {
      this.options.logger.error({ err: error, batch_id: batch._id }, 'batch could not be recorded; nothing was sent');
      throw new AppError('unavailable', 'the batch could not be recorded, so nothing was sent; retry shortly');
    }
  }

  /**
   * A caller-chosen batch id may already be recorded (the write-ahead tolerates the duplicate): by an earlier
   * attempt of the same request, which is what it is for, and then its legs' client ids make the connectors
   * answer with the original outcomes. Recorded for another customer or kind, it is refused before anything is sent.
   */
  async assertBatchOwner(batchId: string, customerId: string, kind: BatchDocument['kind']): Promise<void> {
    // The stored batch first: a retry of an id whose batch finished has just written a document in flight of its own.
    const projection = { projection: { customer_id: 1, kind: 1 } };
    const recorded =
      (await this.options.store.batches.findOne({ _id: batchId }, projection)) ??
      (await this.options.store.openBatches.findOne({ _id: batchId }, projection));
    if (!recorded || recorded.customer_id !== customerId || recorded.kind !== kind) {
      throw new AppError('conflict', `batch id ${batchId} is recorded for another request; nothing was sent`, { param: 'batch_id' });
    }
  }

  /** A batch as recorded: stored with its outcomes, else still in flight (its write-ahead). */
  async findBatch(batchId: string): Promise<BatchDocument | null> {
    const stored = await this.options.store.batches.findOne({ _id: batchId });
    if (stored) return stored;
    const marker = await this.options.store.openBatches.findOne({ _id: batchId });
    return (marker && batchOfMarker(marker)) ?? null;
  }

  /**
   * Stores a batch's outcomes behind its answer. Nothing about sending depends on them: every leg was written
   * ahead with its client id before it was sent, and the open marker stays until the outcomes are stored, so a
   * process that dies (or a store that fails) before then leaves the batch to recovery and reconciliation, exactly
   * as a failure of the store inside the answer's path did. What changes is only that the answer no longer waits
   * for the round trip. Bounded: past `BATCHES_IN_FLIGHT_MAX` outcomes being stored, the caller waits for its own.
   */
  async recordOutcomes(
    batch: BatchDocument,
    results: Array<StoredResult>,
    unsettled: UnsettledDocument[],
    figures: ListingFigures,
  ): Promise<void> {
    if (this.storing.size >= this.options.config.BATCHES_IN_FLIGHT_MAX) return this.persistOutcomes(batch, results, unsettled, figures);
    const entry = { customerId: batch.customer_id, done: this.persistOutcomes(batch, results, unsettled, figures) };
    this.storing.set(batch._id, entry);
    void entry.done.finally(() => {
      if (this.storing.get(batch._id) === entry) this.storing.delete(batch._id);
    });
  }

  /** Waits for the outcomes this process is still storing: of one batch, or of every batch of one customer. */
  private async stored(filter: { batchId?: string; customerId?: string }): Promise<void> {
    if (filter.batchId !== undefined) await this.storing.get(filter.batchId)?.done;
    else if (this.storing.size > 0)
      await Promise.all([...this.storing.values()].filter((entry) => entry.customerId === filter.customerId).map((entry) => entry.done));
  }

  /** Every outcome still being stored (at shutdown, before the store goes away). */
  async drain(): Promise<void> {
    while (this.storing.size > 0) await Promise.all([...this.storing.values()].map((entry) => entry.done));
  }

  /**
   * Stores the batch with its outcomes and lists it; its document in flight goes once all are done. Only the first
   * store of a batch's outcomes keeps its listing (a retried batch id finds them stored, and is listed already).
   */
  async persistOutcomes(
    batch: BatchDocument,
    results: Array<StoredResult>,
    unsettled: UnsettledDocument[],
    figures: ListingFigures,
  ): Promise<void> {
    const writtenAt = this.options.clock.now();
    try {
      // Listed at the same time as stored, not after: one round trip instead of two.
      const [[inserted], , listed] = await Promise.all([
        this.batchWriter.insertEach([{ ...batch, results, source: 'reply', written_at: writtenAt }]),
        this.unsettledWriter.insert(unsettled),
        this.listing.append(batch, writtenAt, figures),
      ]);
      const stored = inserted === 'inserted' ? inserted : await this.storeBeside(batch._id, results, writtenAt);
      // Stored before (a retried batch id): listed before too, so this listing is withdrawn.
      if (stored !== 'inserted') await this.listing.retract(listed);
      else if (figures.settled) this.announceSettled(batch, figures);
    } catch (error) {
      // The open marker stays: recovery marks the legs unknown (or lists the batch) and reconciliation settles them.
      this.options.logger.error({ err: error, batch_id: batch._id }, 'batch outcomes could not be stored; recovery will reconcile them');
      return;
    }
    // Off the answer's path: a marker whose batch has its outcomes is only removed by recovery if this is lost.
    this.openDeleter
      .delete(batch._id)
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error, batch_id: batch._id }, 'open-batch marker not removed; recovery will'),
      );
  }

  /**
   * The outcomes of a retried batch id whose document was there already: stored with it by an earlier attempt
   * (`duplicate`), or, by a version that wrote the batch ahead, without them; those are stored apart, as that
   * version stored them, and whichever attempt stores them first keeps its listing.
   */
  private async storeBeside(batchId: string, results: Array<StoredResult>, writtenAt: Date): Promise<InsertOutcome> {
    const recorded = await this.options.store.batches.findOne({ _id: batchId }, { projection: { _id: 1, results_json: 1 } });
    if (recorded?.results) return 'duplicate';
    const [stored] = await this.outcomeWriter.insertEach([{ _id: batchId, results, source: 'reply', written_at: writtenAt }]);
    return stored!;
  }

  /** batch.settled for the customer's webhooks: once no leg (or account, or ticket) of it is unknown. */
  private announceSettled(batch: Pick<BatchDocument, '_id' | 'customer_id' | 'kind' | 'created_at'>, figures: ListingFigures): void {
    this.options.publishEvent?.(
      customerEvent('batch.settled', batch._id, batch.customer_id, {
        batch_id: batch._id,
        kind: batch.kind,
        created_at: batch.created_at.toISOString(),
        summary: figures.orders_summary ?? figures.close_summary ?? {},
      }),
    );
  }

  /** After a settlement: the batch is announced if that was its last unknown outcome. */
  private async announceIfSettled(batchId: string): Promise<void> {
    if (!this.options.publishEvent) return;
    const batch = await this.findBatch(batchId);
    if (!batch) return;
    const view = await this.view(batch.customer_id, batchId);
    if (view.settled) this.announceSettled(batch, view);
  }

  /** Moves every listing entry an earlier version kept beside the batches (before serving). */
  moveFormerListing(): Promise<number> {
    return this.listing.moveFormerEntries();
  }

  async listBatches(customerId: string, query: ListBatchesQuery): Promise<{ data: BatchListItem[]; has_more: boolean }> {
    await this.stored({ customerId });
    return this.listing.list(customerId, query);
  }

  async settle(batchId: string, index: number, result: StoredResult, source: 'late_reply' | 'reconciliation'): Promise<boolean> {
    let inserted = true;
    try {
      await this.options.store.settlements.insertOne({
        _id: `${batchId}:${index}`,
        batch_id: batchId,
        index,
        result,
        source,
        settled_at: this.options.clock.now(),
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      inserted = false;
    }
    await this.options.store.unsettled.deleteOne({ _id: `${batchId}:${index}` });
    if (inserted) {
      this.options.logger.info({ batch_id: batchId, index, source, status: result.status }, 'unknown outcome settled');
      await this.announceIfSettled(batchId).catch((error: unknown) =>
        this.options.logger.warn({ err: error, batch_id: batchId }, 'could not tell whether the batch is settled'),
      );
    }
    return inserted;
  }

  /** The stored batch with every leg's latest outcome (settlements over replies), as the customer reads it. */
  async view(customerId: string, batchId: string): Promise<BatchView> {
    await this.stored({ batchId });
    const batch = /^bat_[0-9A-Za-z]{1,64}$/.test(batchId) ? await this.findBatch(batchId) : null;
    if (!batch || batch.customer_id !== customerId) throw new AppError('not_found', `no batch ${batchId}`, { param: 'batch_id' });
    const count = batch.kind === 'orders' ? (batch.legs ?? []).length : (batch.accounts ?? []).length;
    const indexes = Array.from({ length: count }, (_, index) => index);
    const [outcomes, settlements] = await Promise.all([
      this.storedOutcomes(batchId, indexes, batch),
      Promise.all(indexes.map((index) => this.options.store.settlements.findOne({ _id: `${batchId}:${index}` }))),
    ]);
    const inFlight = this.nowMs() <= batch.deadline_at.getTime();
    const pendingMessage = inFlight ? 'in progress' : 'the outcome was not recorded yet; it will be reconciled';
    const view: BatchView = { batch_id: batchId, kind: batch.kind, created_at: batch.created_at.toISOString(), settled: true };
    if (batch.kind === 'orders') {
      const legs = batch.legs ?? [];
      view.orders = indexes.map(
        (index) =>
          (settlements[index]?.result ?? outcomes[index] ?? plainLeg(legs[index]!, 'unknown', pendingMessage, 0)) as OrderLegResult,
      );
      Object.assign(view, listingFigures('orders', view.orders));
    } else {
      const accounts = batch.accounts ?? [];
      view.accounts = indexes.map(
        (index) =>
          (settlements[index]?.result ??
            outcomes[index] ??
            plainClose(accounts[index]!.account_id, accounts[index]!.platform, 'unknown', pendingMessage, 0)) as CloseAccountResult,
      );
      Object.assign(view, listingFigures('close', view.accounts));
    }
    return view;
  }

  /**
   * Markers a version that kept them beside the batches left there: copied to where recovery looks, then removed.
   * Read on every pass (an empty collection, one find), since during a rolling upgrade replicas of that version
   * still write there; only markers recovery would take now are moved, so a batch still in flight on such a
   * replica is left to it.
   */
  private async moveFormerMarkers(nowMs: number): Promise<void> {
    const { formerOpenBatches, formerOpenMarkers } = this.options.store;
    for (const collection of [formerOpenBatches, formerOpenMarkers]) {
      const former = (await collection.find({}).limit(1_000).toArray()).filter(
        (marker) => marker.deadline_at.getTime() + this.options.config.RECOVERY_AFTER_MS <= nowMs,
      );
      if (former.length === 0) continue;
      await insertAll(this.options.store.openBatches, former);
      await collection.deleteMany({ _id: { $in: former.map((marker) => marker._id) } });
    }
  }

  /** A batch's stored outcomes by leg index (undefined where none is stored). */
  async storedOutcomes(batchId: string, indexes: number[], batch?: BatchDocument | null): Promise<Array<StoredResult | undefined>> {
    return findOutcomes(this.options.store, batchId, indexes, batch === undefined ? await this.findBatch(batchId) : batch);
  }

  /** Batches whose process died before storing outcomes: every leg without one becomes unknown and unsettled. */
  async recover(): Promise<void> {
    const nowMs = this.nowMs();
    await this.moveFormerMarkers(nowMs);
    await this.listing.moveFormerEntries(1);
    const open = await this.options.store.openBatches.findMany({}, 1_000);
    for (const marker of open) {
      if (marker.deadline_at.getTime() + this.options.config.RECOVERY_AFTER_MS > nowMs) continue;
      // The stored batch wins over the one in flight: a conflicting retry of its id may have left a document here.
      const recorded = await this.options.store.batches.findOne({ _id: marker._id });
      const inFlight = recorded ? undefined : batchOfMarker(marker);
      const batch = recorded ?? inFlight;
      if (batch) {
        const count = batch.kind === 'orders' ? (batch.legs ?? []).length : (batch.accounts ?? []).length;
        const indexes = Array.from({ length: count }, (_, index) => index);
        const stored = await this.storedOutcomes(batch._id, indexes, batch);
        if (stored.some((result) => result === undefined)) {
          const message = 'the execution service stopped before this outcome was recorded; it is being reconciled with the broker';
          const results: Array<StoredResult> = [];
          const unsettled: UnsettledDocument[] = [];
          for (const index of indexes) {
            const leg = batch.legs?.[index];
            const closeAccount = batch.accounts?.[index];
            const kept = stored[index];
            results.push(
              kept ??
                (leg
                  ? plainLeg(leg, 'unknown', message, 0)
                  : plainClose(closeAccount!.account_id, closeAccount!.platform, 'unknown', message, 0)),
            );
            if (kept) continue;
            unsettled.push(unsettledRow(batch, index));
          }
          const recordedAt = new Date(nowMs);
          // A batch known only in flight is stored with its outcomes; one stored before without them (a version
          // that wrote it ahead) gets its outcomes apart, as that version stored them.
          const [first] = inFlight
            ? await this.batchWriter.insertEach([{ ...inFlight, results, source: 'recovery', written_at: recordedAt }])
            : await this.outcomeWriter.insertEach([
                { _id: batch._id, results, source: 'recovery', written_at: recordedAt } satisfies OutcomeDocument,
              ]);
          await insertAll(this.options.store.unsettled, unsettled);
          if (first === 'inserted') await this.listing.append(batch, recordedAt, listingFigures(batch.kind, results));
          this.options.logger.warn({ batch_id: batch._id, legs: unsettled.length }, 'recovered a batch whose outcomes were never stored');
        } else {
          // Its outcomes were stored but the marker stayed: the process died, or the store failed part of the
          // outcome's writes (the outcome stored, its unsettled rows not). Unknown legs without a settlement get
          // their rows now, or reconciliation would never look at them; it may not be listed yet either.
          const settled = await Promise.all(
            indexes.map((index) =>
              stored[index]!.status === 'unknown' ? this.options.store.settlements.findOne({ _id: `${batch._id}:${index}` }) : null,
            ),
          );
          const owed = indexes.filter((index) => stored[index]!.status === 'unknown' && !settled[index]);
          await insertAll(
            this.options.store.unsettled,
            owed.map((index) => unsettledRow(batch, index)),
          );
          const writtenAt = batch.written_at ?? (await this.options.store.outcomes.findOne({ _id: batch._id }))?.written_at;
          if (writtenAt) await this.listing.append(batch, writtenAt, listingFigures(batch.kind, stored as StoredResult[]));
        }
      }
      await this.options.store.openBatches.deleteOne({ _id: marker._id });
    }
  }
}
