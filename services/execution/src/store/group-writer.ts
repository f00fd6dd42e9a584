import type { Collection, Document } from 'mongodb';
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

/**
 * Group commit for one collection: inserts (and deletes by `_id`) requested in the same event-loop turn go
 * to the store as one insertMany (one deleteMany), so concurrent batches share round trips instead of
 * queueing one per document. Each caller still waits for its own write. Inserts tolerate duplicate keys
 * (writes are idempotent by `_id`: a duplicate means the document is already there).
 */
export class GroupWriter<T extends Document & { _id: string }> {
  private inserts: Array<{ documents: T[]; waiter: Waiter }> = [];
  private deletes: Array<{ id: string; waiter: Waiter }> = [];
  private scheduled = false;

  constructor(
    private readonly collection: Collection<T>,
    private readonly batchMax = 1_000,
  ) {}

  insert(documents: T[]): Promise<void> {
    if (documents.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.inserts.push({ documents, waiter: { resolve, reject } });
      this.schedule();
    });
  }

  delete(id: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.deletes.push({ id, waiter: { resolve, reject } });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const inserts = this.inserts.splice(0);
    const deletes = this.deletes.splice(0);
    await Promise.all([this.flushInserts(inserts), this.flushDeletes(deletes)]);
  }

  private async flushInserts(entries: Array<{ documents: T[]; waiter: Waiter }>): Promise<void> {
    for (let start = 0; start < entries.length; ) {
      const group: typeof entries = [];
      let count = 0;
      while (start < entries.length && (group.length === 0 || count + entries[start]!.documents.length <= this.batchMax)) {
        count += entries[start]!.documents.length;
        group.push(entries[start]!);
        start += 1;
      }
      try {
        await this.collection.insertMany(group.flatMap((entry) => entry.documents) as any[], { ordered: false });
        for (const entry of group) entry.waiter.resolve();
      } catch (error) {
        if (onlyDuplicates(error)) for (const entry of group) entry.waiter.resolve();
        else for (const entry of group) entry.waiter.reject(error);
      }
    }
  }

  private async flushDeletes(entries: Array<{ id: string; waiter: Waiter }>): Promise<void> {
    if (entries.length === 0) return;
    try {
      if (entries.length === 1) await this.collection.deleteOne({ _id: entries[0]!.id } as any);
      else await this.collection.deleteMany({ _id: { $in: entries.map((entry) => entry.id) } } as any);
      for (const entry of entries) entry.waiter.resolve();
    } catch (error) {
      for (const entry of entries) entry.waiter.reject(error);
    }
  }
}
