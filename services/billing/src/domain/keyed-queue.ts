import { AppError } from '@mtx/shared/errors';

/**
 * Runs tasks for one key one at a time, in arrival order, on this replica: every change to one customer's
 * seats goes through it, so two calls of one replica never interleave their reads and writes. Across
 * replicas, exclusivity comes from claims and the wallet's idempotent debit instead.
 */
export class KeyedSerialQueue {
  private readonly tails = new Map<string, { promise: Promise<unknown>; waiting: number }>();

  constructor(private readonly limitPerKey: number) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const entry = this.tails.get(key);
    if (entry && entry.waiting >= this.limitPerKey) {
      return Promise.reject(new AppError('unavailable', 'too many billing operations in flight for this customer; retry shortly'));
    }
    const previous = entry?.promise ?? Promise.resolve();
    const current = entry ?? { promise: previous, waiting: 0 };
    current.waiting += 1;
    const result = previous.then(task, task);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    current.promise = settled;
    this.tails.set(key, current);
    void settled.then(() => {
      current.waiting -= 1;
      if (current.waiting === 0 && this.tails.get(key) === current) this.tails.delete(key);
    });
    return result;
  }

  get size(): number {
    return this.tails.size;
  }
}
