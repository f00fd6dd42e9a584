import type { Document } from 'mongodb';
import { AppError } from '@mtx/shared/errors';
import { GroupCommit } from '@mtx/shared/group-commit';
import { InsertBatcher, type InsertOutcome } from '@mtx/shared/insert-batcher';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

export type { InsertOutcome };

export interface GroupWriterOptions {
  /** Documents (or deleted ids) in one command. */
  batchMax?: number;
  /** Commands of each kind in flight at once. */
  inFlightMax?: number;
  /** Documents (or ids) waiting at most; beyond it a write is refused at once with `unavailable`. */
  queueMax?: number;
  /**
   * How long a delete waits for others to share its command (0: it goes in the turn it was asked). For deletes
   * nobody waits on, such as an open marker removed after the answer: under light load each would be a store
   * command of its own, which on FerretDB costs far more than the documents it removes.
   */
  deleteLingerMs?: number;
  /** No database span for its commands (GroupCommitOptions.untraced says when). */
  untraced?: boolean;
  /** How long an insert waits for others to share its command (0: the next turn): for inserts nobody waits on. */
  insertLingerMs?: number;
}

type Bounds = Required<GroupWriterOptions>;

/** What a group writer needs of a collection (a driver Collection, or a store adapter over one). */
export interface WritableCollection<T> {
  readonly collectionName: string;
  insertMany(documents: T[], options: { ordered: boolean }): Promise<unknown>;
  deleteMany(filter: { _id: { $in: string[] } }): Promise<unknown>;
}

function queueFull(collectionName: string, queueMax: number): AppError {
  return new AppError('unavailable', `${queueMax} writes to ${collectionName} are already waiting for the store; retry shortly`);
}

class DeletesById<T extends Document> extends GroupCommit<{ id: string; waiter: Waiter }> {
  constructor(
    private readonly collection: WritableCollection<T>,
    private readonly bounds: Bounds,
  ) {
    super({ weightMax: bounds.batchMax, inFlightMax: bounds.inFlightMax, lingerMs: bounds.deleteLingerMs, untraced: bounds.untraced });
  }

  delete(id: string): Promise<void> {
    if (this.waiting.length >= this.bounds.queueMax) return Promise.reject(queueFull(this.collection.collectionName, this.bounds.queueMax));
    return new Promise((resolve, reject) => this.enqueue({ id, waiter: { resolve, reject } }));
  }

  protected weightOf(): number {
    return 1;
  }

  protected async write(batch: Array<{ id: string; waiter: Waiter }>): Promise<void> {
    try {
      // One statement for the whole group: MongoDB serves an `_id` `$in` from the index, and the project's FerretDB
      // build deletes it by the index without reading the documents (docs/architecture.md, "Storage rules").
      await this.collection.deleteMany({ _id: { $in: batch.map((entry) => entry.id) } });
      for (const entry of batch) entry.waiter.resolve();
    } catch (error) {
      for (const entry of batch) entry.waiter.reject(error);
    }
  }
}

/**
 * Group commit for one collection: inserts (the shared InsertBatcher) and deletes by `_id` requested in the same event-loop turn go
 * to the store as one insertMany (one deleteMany by `_id`), so concurrent batches share round trips instead of
 * queueing one per document. Each caller still waits for its own write, and learns for each document whether it
 * was inserted or its `_id` was already taken.
 */
export class GroupWriter<T extends Document & { _id: string }> {
  private readonly inserts: InsertBatcher<T>;
  private readonly deletes: DeletesById<T>;

  constructor(collection: WritableCollection<T>, options: GroupWriterOptions = {}) {
    const bounds: Bounds = {
      batchMax: options.batchMax ?? 1_000,
      inFlightMax: options.inFlightMax ?? 2,
      queueMax: options.queueMax ?? 100_000,
      deleteLingerMs: options.deleteLingerMs ?? 0,
      untraced: options.untraced ?? false,
      insertLingerMs: options.insertLingerMs ?? 0,
    };
    this.inserts = new InsertBatcher(collection, {
      batchMax: bounds.batchMax,
      inFlightMax: bounds.inFlightMax,
      queueMax: bounds.queueMax,
      untraced: bounds.untraced,
      lingerMs: bounds.insertLingerMs,
    });
    this.deletes = new DeletesById(collection, bounds);
  }

  /** Idempotent inserts: a document already there counts as written. */
  insert(documents: T[]): Promise<void> {
    return this.inserts.insertAll(documents);
  }

  /** Inserts that claim: each document's outcome, `duplicate` when its `_id` was taken before. */
  insertEach(documents: T[]): Promise<InsertOutcome[]> {
    return this.inserts.insertEach(documents);
  }

  delete(id: string): Promise<void> {
    return this.deletes.delete(id);
  }
}
