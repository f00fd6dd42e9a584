import { AppError } from '@mtx/shared/errors';
import { ClaimedSequence } from '@mtx/shared/claimed-sequence';
import type { Logger } from '@mtx/shared/logger';
import type { BatchView, CloseSummary, PlaceSummary } from '../domain/results';
import type { BatchListingDocument, ExecutionStore } from '../store/execution-store';
import { GroupWriter } from '../store/group-writer';

export interface ListBatchesQuery {
  limit: number;
  starting_after?: string;
  kind?: 'orders' | 'close';
  created_gte_ms?: number;
  created_lt_ms?: number;
}

export interface BatchListItem {
  batch_id: string;
  kind: 'orders' | 'close';
  created_at: string;
  settled: boolean;
  orders_summary?: PlaceSummary;
  close_summary?: CloseSummary;
}

export interface BatchListingOptions {
  store: Pick<ExecutionStore, 'batches' | 'batchListing' | 'formerBatchListing' | 'outcomes'>;
  logger: Logger;
  /** The batch as the customer reads it now (for entries not settled when they were listed). */
  view: (customerId: string, batchId: string) => Promise<BatchView>;
  /** How long an entry's insert waits for others to share its command (entries are written behind the answer). */
  insertLingerMs?: number;
  /**
   * The longest a batch's outcomes may be recorded after it was created (its deadline, or recovery after a
   * crash), so a walk by recording order knows when no older creation time can follow.
   */
  recordedWithinMs: number;
}

export const listLimitDefault = 10;
export const listLimitMax = 100;
/** Clocks of replicas that record batches may differ by this much. */
const clockSkewMs = 5_000;
/** Entries around the one a bisection lands on, searched for the cursor's batch (replicas interleave). */
const cursorWindow = 64;
const readChunk = 32;
/** Former listing entries moved per step. */
const formerPage = 1_000;

type Scope = 'all' | 'orders' | 'close';

/**
 * The customer's batches, newest first. Each scope (`all`, `orders`, `close`) is a gapless-by-design sequence of
 * entries `<customer>:<scope>:<n>` claimed by insert, so a page is a walk down `_id` lookups whatever the
 * backend, with no secondary index (FerretDB scans on anything but `_id`). A batch is listed when its outcomes
 * are first stored, in that order; its summary is stored with it and a batch not settled then is read afresh.
 * A cursor (`starting_after`) is found by bisecting on the recording time, which the stored batch (or, for
 * batches stored before, the outcome document) shares.
 */
export class BatchListing {
  private readonly writer: GroupWriter<BatchListingDocument>;
  /** `<customer>:<scope>` → its numbers. */
  private readonly sequence: ClaimedSequence;

  constructor(private readonly options: BatchListingOptions) {
    // The listing is derived from the outcomes, whose write keeps its span: no database span of its own.
    this.writer = new GroupWriter(options.store.batchListing, { untraced: true, insertLingerMs: options.insertLingerMs ?? 0 });
    this.sequence = new ClaimedSequence(
      async (_id) => (await options.store.batchListing.findOne({ _id }, { projection: { _id: 1 } })) !== null,
    );
  }

  /**
   * Lists a batch whose outcomes are being stored (at `recordedAt`, as in its outcome document); answers the
   * entries' ids, for `retract` when the outcomes turn out to have been stored before (a retried batch id).
   */
  async append(
    batch: { _id: string; customer_id: string; kind: 'orders' | 'close'; created_at: Date },
    recordedAt: Date,
    figures: { settled: boolean; orders_summary?: PlaceSummary; close_summary?: CloseSummary },
  ): Promise<string[]> {
    const fields = {
      customer_id: batch.customer_id,
      batch_id: batch._id,
      kind: batch.kind,
      created_at: batch.created_at,
      recorded_at: recordedAt,
      settled: figures.settled,
      ...(figures.orders_summary ? { orders_summary: figures.orders_summary } : {}),
      ...(figures.close_summary ? { close_summary: figures.close_summary } : {}),
    };
    return Promise.all((['all', batch.kind] as const).map((scope) => this.appendIn(`${batch.customer_id}:${scope}`, fields)));
  }

  /**
   * Withdraws entries of a batch listed before (marked, not deleted: a sequence keeps no hole). A page passes
   * over them.
   */
  async retract(entryIds: string[]): Promise<void> {
    await Promise.all(entryIds.map((_id) => this.options.store.batchListing.updateOne({ _id }, { $set: { retracted: true } })));
  }

  /**
   * Moves the entries a version that kept them beside the batches left there, keeping their numbers (so the order
   * stays), then removes them; answers how many it moved. Run before serving, while nothing else appends here;
   * then on every recovery pass (one empty find), since during a rolling upgrade replicas of that version still
   * append there: an entry whose number was taken here meanwhile is appended again, as the newest.
   */
  async moveFormerEntries(pagesMax = Number.POSITIVE_INFINITY): Promise<number> {
    let moved = 0;
    for (let page = 0; page < pagesMax; page += 1) {
      const former = await this.options.store.formerBatchListing.find({}).limit(formerPage).toArray();
      if (former.length === 0) break;
      const statuses = await this.writer.insertEach(former);
      await Promise.all(
        former.map(async (entry, index) => {
          if (statuses[index] === 'inserted') return;
          const holder = await this.options.store.batchListing.findOne({ _id: entry._id }, { projection: { batch_id: 1 } });
          if (holder?.batch_id === entry.batch_id) return;
          const { _id, ...fields } = entry;
          await this.appendIn(_id.slice(0, _id.lastIndexOf(':')), fields);
        }),
      );
      await this.options.store.formerBatchListing.deleteMany({ _id: { $in: former.map((entry) => entry._id) } });
      moved += former.length;
    }
    if (moved > 0) this.options.logger.info({ entries: moved }, 'batch listing entries moved to their own database');
    return moved;
  }

  private appendIn(key: string, fields: Omit<BatchListingDocument, '_id'>): Promise<string> {
    return this.sequence.claim(key, async (_id) => (await this.writer.insertEach([{ _id, ...fields }]))[0] === 'inserted');
  }

  private entry(key: string, number: number): Promise<BatchListingDocument | null> {
    return this.options.store.batchListing.findOne({ _id: `${key}:${number}` });
  }

  /** The entry at `number`, or the nearest below it within a few (an append that failed leaves a hole). */
  private async entryAtOrBelow(key: string, number: number): Promise<{ number: number; entry: BatchListingDocument } | undefined> {
    for (let candidate = number; candidate >= Math.max(1, number - 8); candidate -= 1) {
      const entry = await this.entry(key, candidate);
      if (entry) return { number: candidate, entry };
    }
    return undefined;
  }

  /** The highest number in [1, head] whose entry was recorded before `beforeMs`, by bisection (0 for none). */
  private async lastRecordedBefore(key: string, head: number, beforeMs: number): Promise<number> {
    let low = 0;
    let high = head + 1;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      const found = await this.entryAtOrBelow(key, middle);
      if (found && found.number > low && found.entry.recorded_at.getTime() < beforeMs) low = middle;
      else high = middle;
    }
    return low;
  }

  /** Where the cursor's batch sits in the scope's sequence. */
  private async positionOf(customerId: string, key: string, head: number, batchId: string): Promise<number> {
    const refuse = () =>
      new AppError('invalid_request', `starting_after ${batchId} is not one of this customer's listed batches`, {
        param: 'starting_after',
      });
    if (!/^bat_[0-9A-Za-z]{1,64}$/.test(batchId)) throw refuse();
    // When its outcomes were stored: with the batch, or (batches stored before) in their own document.
    const stored = await this.options.store.batches.findOne({ _id: batchId }, { projection: { written_at: 1 } });
    const writtenAt = stored?.written_at ?? (await this.options.store.outcomes.findOne({ _id: batchId }))?.written_at;
    if (!writtenAt) throw refuse();
    const recordedMs = writtenAt.getTime();
    const around = await this.lastRecordedBefore(key, head, recordedMs + 1);
    const numbers: number[] = [];
    for (let offset = 0; offset <= cursorWindow; offset += 1) {
      if (around - offset >= 1) numbers.push(around - offset);
      if (offset > 0 && around + offset <= head) numbers.push(around + offset);
    }
    for (let index = 0; index < numbers.length; index += readChunk) {
      const chunk = numbers.slice(index, index + readChunk);
      const entries = await Promise.all(chunk.map((number) => this.entry(key, number)));
      const found = entries.findIndex((entry) => entry?.batch_id === batchId && entry.customer_id === customerId);
      if (found >= 0) return chunk[found]!;
    }
    throw refuse();
  }

  async list(customerId: string, query: ListBatchesQuery): Promise<{ data: BatchListItem[]; has_more: boolean }> {
    const scope: Scope = query.kind ?? 'all';
    const key = `${customerId}:${scope}`;
    const head = await this.sequence.head(key);
    let start = head;
    if (query.starting_after) start = Math.min(start, (await this.positionOf(customerId, key, head, query.starting_after)) - 1);
    if (query.created_lt_ms !== undefined)
      start = Math.min(start, await this.lastRecordedBefore(key, start, query.created_lt_ms + this.options.recordedWithinMs + clockSkewMs));
    const stopBeforeMs = query.created_gte_ms === undefined ? undefined : query.created_gte_ms - clockSkewMs;

    const found: BatchListingDocument[] = [];
    const seen = new Set<string>();
    let number = start;
    let exhausted = false;
    while (found.length <= query.limit && number >= 1 && !exhausted) {
      const numbers = Array.from({ length: Math.min(readChunk, number) }, (_, offset) => number - offset);
      number -= numbers.length;
      const entries = await Promise.all(numbers.map((each) => this.entry(key, each)));
      for (const entry of entries) {
        if (!entry || entry.customer_id !== customerId || entry.retracted) continue;
        if (stopBeforeMs !== undefined && entry.recorded_at.getTime() < stopBeforeMs) {
          exhausted = true;
          break;
        }
        const createdMs = entry.created_at.getTime();
        if (query.created_gte_ms !== undefined && createdMs < query.created_gte_ms) continue;
        if (query.created_lt_ms !== undefined && createdMs >= query.created_lt_ms) continue;
        // An append retried after its first insert landed unseen lists the batch twice: show it once.
        if (seen.has(entry.batch_id)) continue;
        seen.add(entry.batch_id);
        found.push(entry);
        if (found.length > query.limit) break;
      }
    }
    const page = found.slice(0, query.limit);
    const data = await Promise.all(page.map((entry) => this.itemOf(customerId, entry)));
    return { data, has_more: found.length > query.limit };
  }

  private async itemOf(customerId: string, entry: BatchListingDocument): Promise<BatchListItem> {
    if (!entry.settled) {
      const view = await this.options.view(customerId, entry.batch_id);
      return {
        batch_id: view.batch_id,
        kind: view.kind,
        created_at: view.created_at,
        settled: view.settled,
        ...(view.orders_summary ? { orders_summary: view.orders_summary } : {}),
        ...(view.close_summary ? { close_summary: view.close_summary } : {}),
      };
    }
    return {
      batch_id: entry.batch_id,
      kind: entry.kind,
      created_at: entry.created_at.toISOString(),
      settled: true,
      ...(entry.orders_summary ? { orders_summary: entry.orders_summary } : {}),
      ...(entry.close_summary ? { close_summary: entry.close_summary } : {}),
    };
  }
}
