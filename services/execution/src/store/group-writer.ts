import type { Document } from 'mongodb';
import { AppError } from '@mtx/shared/errors';
import { GroupCommit } from '@mtx/shared/group-commit';
import { isDuplicateKeyError } from '@mtx/shared/mongo';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

function onlyDuplicates(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> }).writeErrors;
  if (Array.isArray(writeErrors) && writeErrors.length > 0) return writeErrors.every((item) => (item.code ?? item.err?.code) === 11000);
  return isDuplicateKeyError(error);
}

export interface GroupWriterOptions {
  /** Documents (or deleted ids) in one command. */
  batchMax?: number;
  /** Commands of each kind in flight at once. */
  inFlightMax?: number;
  /** Documents (or ids) waiting at most; beyond it a write is refused at once with `unavailable`. */
  queueMax?: number;
}

type Bounds = Required<GroupWriterOptions>;

/** What a group writer needs of a collection (a driver Collection, or a store adapter over one). */
export interface WritableCollection<T> {
  readonly collectionName: string;
  insertMany(documents: T[], options: { ordered: boolean }): Promise<unknown>;
  deleteOne(filter: { _id: string }): Promise<unknown>;
  deleteMany(filter: { _id: { $in: string[] } }): Promise<unknown>;
}

function queueFull(collectionName: string, queueMax: number): AppError {
  return new AppError('unavailable', `${queueMax} writes to ${collectionName} are already waiting for the store; retry shortly`);
}

/** Idempotent inserts: a duplicate key means the document is already there, which is success. */
class IdempotentInserts<T extends Document> extends GroupCommit<{ documents: T[]; waiter: Waiter }> {
  constructor(
    private readonly collection: WritableCollection<T>,
    private readonly bounds: Bounds,
  ) {
    super({ weightMax: bounds.batchMax, inFlightMax: bounds.inFlightMax });
  }

  insert(documents: T[]): Promise<void> {
    if (documents.length === 0) return Promise.resolve();
    if (this.waitingWeight + documents.length > this.bounds.queueMax)
      return Promise.reject(queueFull(this.collection.collectionName, this.bounds.queueMax));
    return new Promise((resolve, reject) => this.enqueue({ documents, waiter: { resolve, reject } }));
  }

  protected weightOf(entry: { documents: T[] }): number {
    return entry.documents.length;
  }

  protected async write(batch: Array<{ documents: T[]; waiter: Waiter }>): Promise<void> {
    try {
      await this.collection.insertMany(
        batch.flatMap((entry) => entry.documents),
        { ordered: false },
      );
      for (const entry of batch) entry.waiter.resolve();
    } catch (error) {
      if (onlyDuplicates(error)) for (const entry of batch) entry.waiter.resolve();
      else for (const entry of batch) entry.waiter.reject(error);
    }
  }
}

class DeletesById<T extends Document> extends GroupCommit<{ id: string; waiter: Waiter }> {
  constructor(
    private readonly collection: WritableCollection<T>,
    private readonly bounds: Bounds,
  ) {
    super({ weightMax: bounds.batchMax, inFlightMax: bounds.inFlightMax });
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
      if (batch.length === 1) await this.collection.deleteOne({ _id: batch[0]!.id });
      else await this.collection.deleteMany({ _id: { $in: batch.map((entry) => entry.id) } });
      for (const entry of batch) entry.waiter.resolve();
    } catch (error) {
      for (const entry of batch) entry.waiter.reject(error);
    }
  }
}

/**
 * Group commit for one collection: inserts (and deletes by `_id`) requested in the same event-loop turn go
 * to the store as one insertMany (one deleteMany), so concurrent batches share round trips instead of
 * queueing one per document. Each caller still waits for its own write. Inserts tolerate duplicate keys
 * (writes are idempotent by `_id`: a duplicate means the document is already there).
 */
export class GroupWriter<T extends Document & { _id: string }> {
  private readonly inserts: IdempotentInserts<T>;
  private readonly deletes: DeletesById<T>;

  constructor(collection: WritableCollection<T>, options: GroupWriterOptions = {}) {
    const bounds: Bounds = {
      batchMax: options.batchMax ?? 1_000,
      inFlightMax: options.inFlightMax ?? 2,
      queueMax: options.queueMax ?? 100_000,
    };
    this.inserts = new IdempotentInserts(collection, bounds);
    this.deletes = new DeletesById(collection, bounds);
  }

  insert(documents: T[]): Promise<void> {
    return this.inserts.insert(documents);
  }

  delete(id: string): Promise<void> {
    return this.deletes.delete(id);
  }
}
