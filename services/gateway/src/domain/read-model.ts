import { Freshness, type FreshnessStamp } from '@mtx/shared/freshness';
import { LinkedMap } from '@mtx/shared/linked-map';

/**
 * A per-customer read model: the last composed answer of a read route (GET /v1/wallet), served from memory
 * while it is younger than its customer's window (at most `freshMs`, spread by customer: the shared `Freshness`)
 * and nothing has invalidated it. The backends announce every change over NATS (wallet movements, top-up
 * changes, billing revisions) and this gateway's own writes invalidate at once, so `freshMs` only bounds how long a
 * lost announcement can leave an answer stale.
 *
 * Two rules keep a stale answer from being stored after an invalidation: a load may store its answer only if no
 * invalidation of its customer came after the load started (`Freshness`, the rule every read cache here follows);
 * and an invalidation detaches the load in flight, so later readers start a fresh one instead of joining a load
 * that may have read the old state.
 */
export interface ReadModelOptions {
  freshMs: number;
  entriesMax: number;
  now?: () => number;
}

interface Entry<T> {
  value: T;
  /** The change mark when its load began, and the time it was stored. */
  stamp: FreshnessStamp;
}

export interface ReadModelStats {
  hits: number;
  loads: number;
  joined: number;
  invalidations: number;
  size: number;
}

export class ReadModel<T> {
  private readonly entries = new LinkedMap<string, Entry<T>>();
  private readonly loading = new Map<string, { startedAt: FreshnessStamp; promise: Promise<T> }>();
  private readonly freshness: Freshness;
  private enabled = true;
  private readonly now: () => number;
  private readonly counts = { hits: 0, loads: 0, joined: 0, invalidations: 0 };

  constructor(private readonly options: ReadModelOptions) {
    this.now = options.now ?? (() => performance.now());
    this.freshness = new Freshness(options.freshMs, options.entriesMax, this.now);
  }

  get stats(): ReadModelStats {
    return { ...this.counts, size: this.entries.size };
  }

  /** The cached answer if fresh, else the answer of a load (shared with concurrent readers of the customer). */
  read(customerId: string, load: () => Promise<T>): Promise<T> {
    if (!this.enabled || this.options.freshMs <= 0) return load();
    const entry = this.entries.get(customerId);
    if (entry) {
      if (this.freshness.trusts(customerId, entry.stamp)) {
        this.counts.hits += 1;
        return Promise.resolve(entry.value);
      }
      this.entries.delete(customerId);
    }
    const inFlight = this.loading.get(customerId);
    if (inFlight) {
      this.counts.joined += 1;
      return inFlight.promise;
    }
    const startedAt = this.freshness.begin();
    this.counts.loads += 1;
    const promise = load().then(
      (value) => {
        if (this.loading.get(customerId)?.promise === promise) this.loading.delete(customerId);
        if (this.enabled && this.freshness.unchangedSince(customerId, startedAt)) this.store(customerId, value, startedAt);
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(customerId)?.promise === promise) this.loading.delete(customerId);
        throw error;
      },
    );
    this.loading.set(customerId, { startedAt, promise });
    return promise;
  }

  invalidate(customerId: string): void {
    this.counts.invalidations += 1;
    this.entries.delete(customerId);
    this.loading.delete(customerId);
    this.freshness.noteChange(customerId);
  }

  /** Forgets everything and, while disabled, answers every read by a load: for when announcements may be lost. */
  setEnabled(enabled: boolean): void {
    this.freshness.noteAllChanged();
    this.entries.clear();
    this.loading.clear();
    this.enabled = enabled;
  }

  get isEnabled(): boolean {
    return this.enabled && this.options.freshMs > 0;
  }

  private store(customerId: string, value: T, startedAt: FreshnessStamp): void {
    this.entries.delete(customerId);
    // Fresh for its window from when it was stored; distrusted by any change after its load began.
    this.entries.set(customerId, { value, stamp: { mark: startedAt.mark, atMs: this.now() } });
    while (this.entries.size > this.options.entriesMax) this.entries.shift();
  }
}
