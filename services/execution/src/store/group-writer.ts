import type { Document } from 'mongodb';
import { AppError } from '@mtx/shared/errors';
import { GroupCommit } from '@mtx/shared/group-commit';
import { isDuplicateKeyError } from '@mtx/shared/mongo';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** What became of one document of a grouped insert. */
export type InsertOutcome = 'inserted' | 'duplicate';

interface InsertWaiter {
  resolve: (outcomes: InsertOutcome[]) => void;
  reject: (error: unknown) => void;
}

interface WriteErrorItem {
  index?: number;
  code?: number;
  err?: { index?: number; code?: number };
}

/**
 * The write errors of an insert the store answered, or undefined when it did not answer for every document. A
 * lost connection or a timeout in the middle of insertMany also comes as a MongoBulkWriteError, with no write
 * errors: nothing says which documents were stored, so none may be taken as inserted.
 */
function writeErrorsOf(error: unknown): WriteErrorItem[] | undefined {
  const reported = (error as { writeErrors?: WriteErrorItem[] | WriteErrorItem }).writeErrors;
  // The driver reports a single write error as an object, not an array.
  const writeErrors = Array.isArray(reported) ? reported : reported ? [reported] : [];
  if (writeErrors.length === 0 || (error as { writeConcernError?: unknown }).writeConcernError !== undefined) return undefined;
  return writeErrors;
}

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

/**
 * Grouped inserts, each document reported as inserted or already there (a duplicate `_id`): callers that write
 * idempotently treat both as success; callers that claim by insert learn whether they won.
 */
class GroupedInserts<T extends Document> extends GroupCommit<{ documents: T[]; waiter: InsertWaiter }> {
  constructor(
    private readonly collection: WritableCollection<T>,
    private readonly bounds: Bounds,
  ) {
    super({ weightMax: bounds.batchMax, inFlightMax: bounds.inFlightMax });
  }

  insert(documents: T[]): Promise<InsertOutcome[]> {
    if (documents.length === 0) return Promise.resolve([]);
    if (this.waitingWeight + documents.length > this.bounds.queueMax)
      return Promise.reject(queueFull(this.collection.collectionName, this.bounds.queueMax));
    return new Promise((resolve, reject) => this.enqueue({ documents, waiter: { resolve, reject } }));
  }

  protected weightOf(entry: { documents: T[] }): number {
    return entry.documents.length;
  }

  protected async write(batch: Array<{ documents: T[]; waiter: InsertWaiter }>): Promise<void> {
    try {
      await this.collection.insertMany(
        batch.flatMap((entry) => entry.documents),
        { ordered: false },
      );
      for (const entry of batch) entry.waiter.resolve(entry.documents.map(() => 'inserted'));
      return;
    } catch (error) {
      const writeErrors = writeErrorsOf(error);
      if (!writeErrors) {
        if (isDuplicateKeyError(error) && batch.length === 1 && batch[0]!.documents.length === 1) batch[0]!.waiter.resolve(['duplicate']);
        else for (const entry of batch) entry.waiter.reject(error);
        return;
      }
      // An unordered insert goes on past a failed document: the ones not named in writeErrors are stored.
      const failures = new Map<number, number | undefined>();
      for (const item of writeErrors) failures.set(item.index ?? item.err?.index ?? -1, item.code ?? item.err?.code);
      if (failures.has(-1)) {
        for (const entry of batch) entry.waiter.reject(error);
        return;
      }
      let offset = 0;
      for (const entry of batch) {
        const outcomes: InsertOutcome[] = [];
        let failed = false;
        for (let index = 0; index < entry.documents.length; index += 1) {
          const code = failures.get(offset + index);
          if (!failures.has(offset + index)) outcomes.push('inserted');
          else if (code === 11000) outcomes.push('duplicate');
          else failed = true;
        }
        offset += entry.documents.length;
        if (failed) entry.waiter.reject(error);
        else entry.waiter.resolve(outcomes);
      }
    }
  }
}

class DeletesById<T extends Document> extends GroupCommit<{ id: string; waiter: Waiter }> {
  constructor(
    private readonly collection: WritableCollection<T>,
    private readonly bounds: Bounds,
  ) {
    super({ weightMax: bounds.batchMax, inFlightMax: bounds.inFlightMax, lingerMs: bounds.deleteLingerMs });
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
 * queueing one per document. Each caller still waits for its own write, and learns for each document whether it
 * was inserted or its `_id` was already taken.
 */
export class GroupWriter<T extends Document & { _id: string }> {
  private readonly inserts: GroupedInserts<T>;
  private readonly deletes: DeletesById<T>;

  constructor(collection: WritableCollection<T>, options: GroupWriterOptions = {}) {
    const bounds: Bounds = {
      batchMax: options.batchMax ?? 1_000,
      inFlightMax: options.inFlightMax ?? 2,
      queueMax: options.queueMax ?? 100_000,
      deleteLingerMs: options.deleteLingerMs ?? 0,
    };
    this.inserts = new GroupedInserts(collection, bounds);
    this.deletes = new DeletesById(collection, bounds);
  }

  /** Idempotent inserts: a document already there counts as written. */
  async insert(documents: T[]): Promise<void> {
    await this.inserts.insert(documents);
  }

  /** Inserts that claim: each document's outcome, `duplicate` when its `_id` was taken before. */
  insertEach(documents: T[]): Promise<InsertOutcome[]> {
    return this.inserts.insert(documents);
  }

  delete(id: string): Promise<void> {
    return this.deletes.delete(id);
  }
}
