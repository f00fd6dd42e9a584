import { context, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { WriteGate } from './write-gate';

export interface GroupCommitOptions {
  /** Weight (documents) one command carries at most; an item heavier than this goes alone. */
  weightMax: number;
  /** Commands in flight at once; while they are, new items wait and go out together. */
  inFlightMax: number;
  /** Shared by every writer of one database, so their commands take the store's write lock one after another. */
  gate?: WriteGate | undefined;
  /**
   * How long a command waits for more items before it goes out (0: the next turn). For writes nobody waits on,
   * which under light load would otherwise each be a command of their own; a full command goes at once.
   */
  lingerMs?: number;
  /**
   * No database span for its commands. For writes on a request's hot path that a trace reader does not need
   * (markers, listings, rate-limit slots): a command serves every request whose writes joined it, yet its span
   * would sit in the trace of whichever request scheduled it, and each span is work for every request traced.
   */
  untraced?: boolean | undefined;
}

/**
 * The scheduling half of group commit, shared by the store writers that batch concurrent callers' documents into
 * one command (InsertBatcher, OrderedRunBatcher): items wait in order; a command goes out on the next turn of the
 * event loop (so the writes of concurrent requests join it) while fewer than `inFlightMax` are in flight, and takes
 * whole items from the front up to `weightMax` at the moment it can go out, after the write gate, so items
 * arriving while it waits still join it. What a command means, and how each caller learns its outcome, is the
 * subclass's `write`.
 */
export abstract class GroupCommit<Item> {
  protected readonly waiting: Item[] = [];
  protected waitingWeight = 0;
  private inFlight = 0;
  private scheduled = false;
  private lingerTimer: NodeJS.Timeout | undefined;

  protected constructor(private readonly options: GroupCommitOptions) {}

  protected abstract weightOf(item: Item): number;

  /** Writes one batch and settles every item in it (or puts untried ones back with `requeueFront`). */
  protected abstract write(batch: Item[]): Promise<void>;

  protected enqueue(item: Item): void {
    this.waiting.push(item);
    this.waitingWeight += this.weightOf(item);
    if (this.lingerTimer && this.waitingWeight >= this.options.weightMax) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
      this.scheduled = false;
    }
    this.schedule();
  }

  /** Items a command did not reach: first in line for the next one. */
  protected requeueFront(items: Item[]): void {
    this.waiting.unshift(...items);
    for (const item of items) this.waitingWeight += this.weightOf(item);
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.inFlightMax || this.waiting.length === 0) return;
    this.scheduled = true;
    const lingerMs = this.options.lingerMs ?? 0;
    if (lingerMs > 0 && this.waitingWeight < this.options.weightMax) {
      this.lingerTimer = setTimeout(() => {
        this.lingerTimer = undefined;
        this.scheduled = false;
        this.flush();
      }, lingerMs);
      // Writes nobody waits on must not hold the process open at shutdown.
      this.lingerTimer.unref();
      return;
    }
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.options.inFlightMax && this.waitingWeight > this.inFlight * this.options.weightMax) {
      this.inFlight += 1;
      void this.send().finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  private send(): Promise<void> {
    if (!this.options.untraced) return this.sendNow();
    // Without a parent span the database instrumentation (requireParentSpan) skips the command outright, before
    // computing its span's attributes; suppression covers any other instrumentation on the way.
    return context.with(suppressTracing(trace.deleteSpan(context.active())), () => this.sendNow());
  }

  private async sendNow(): Promise<void> {
    const takeAndWrite = async () => {
      const batch = this.take();
      if (batch.length > 0) await this.write(batch);
    };
    if (this.options.gate) return this.options.gate.run(takeAndWrite);
    return takeAndWrite();
  }

  /** Whole items from the front, up to `weightMax` (at least one). */
  private take(): Item[] {
    const batch: Item[] = [];
    let weight = 0;
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      const nextWeight = this.weightOf(next);
      if (batch.length > 0 && weight + nextWeight > this.options.weightMax) break;
      this.waiting.shift();
      batch.push(next);
      weight += nextWeight;
    }
    this.waitingWeight -= weight;
    return batch;
  }
}
