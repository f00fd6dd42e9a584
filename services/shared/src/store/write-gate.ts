/**
 * Lets at most `limit` tasks run at once; the others wait in arrival order. Store writes to one database pass
 * through one: FerretDB on SQLite serialises every write of a database behind one lock, and a writer that finds
 * it taken sleeps in SQLite's busy handler (1, 2, 5, … up to 100 ms) instead of queueing, so many concurrent
 * writers make each write take tens of milliseconds where one at a time takes under one. Queued here, they
 * wait only for each other (and, batched, share the next command).
 */
export class WriteGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`write gate limit must be a positive integer, got ${limit}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}
