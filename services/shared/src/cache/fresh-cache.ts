import { BoundedCache } from './bounded-cache';
import { Freshness, type FreshnessStamp } from './freshness';

export interface FreshCacheOptions {
  /** How long an answer is served without a reload (spread by key, see Freshness); 0 turns the cache off. */
  freshMs: number;
  /** Keys held at most; the least recently used go first. */
  entriesMax: number;
  now?: () => number;
  /**
   * With it, a read served from memory after this share of its key's window (0 to 1) starts the key's reload in
   * the background, so a key read steadily is reloaded before its answer expires and no read waits for the load.
   * Only `read` does this (it has the loader); what it serves is trusted as without it.
   */
  refreshAheadShare?: number;
}

export interface FreshCacheStats {
  hits: number;
  loads: number;
  joined: number;
  invalidations: number;
  /** Loads started ahead of expiry (`refreshAheadShare`) by reads served from memory; not in `loads`. */
  refreshes: number;
  size: number;
}

interface Entry<V> {
  value: V;
  stamp: FreshnessStamp;
}

/**
 * The one read cache of the services: bounded, one load at a time per key, and trusted only under the shared
 * `Freshness` rule (younger than its key's window, and no change of the key noted after its load began). Changes
 * are noted by this replica's own writes (`invalidate`, `set`) and by other replicas' announcements
 * (`followAnnouncements`), which also suspends every cache while NATS is disconnected, since announcements may
 * then be missed: `freshMs` only bounds how long a lost announcement can leave an answer stale.
 *
 * An entry that is no longer trusted is kept as a base (`peek`) for a reload that can skip what cannot change
 * (billing's joined views), until it is evicted or invalidated.
 */
export class FreshCache<V> {
  private readonly entries: BoundedCache<Entry<V>>;
  private readonly loading = new Map<string, { stamp: FreshnessStamp; promise: Promise<V> }>();
  private readonly freshness: Freshness;
  private suspended = false;
  private readonly counts = { hits: 0, loads: 0, joined: 0, invalidations: 0, refreshes: 0 };

  constructor(private readonly options: FreshCacheOptions) {
    this.freshness = new Freshness(options.freshMs, options.entriesMax, options.now);
    this.entries = new BoundedCache(options.entriesMax);
  }

  /** Whether answers are served from memory at all (a window above 0, and announcements flowing). */
  get enabled(): boolean {
    return this.options.freshMs > 0 && !this.suspended;
  }

  get stats(): FreshCacheStats {
    return { ...this.counts, size: this.entries.size };
  }

  /** The value of `key` if it may be served now, else undefined. */
  get(key: string): V | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(key);
    if (!entry || !this.freshness.trusts(key, entry.stamp)) return undefined;
    this.counts.hits += 1;
    return entry.value;
  }

  /** The last value stored for `key`, trusted or not: the base of an incremental reload. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Taken before the reads of a load whose answer goes to `store`. */
  begin(): FreshnessStamp {
    return this.freshness.begin();
  }

  /**
   * Keeps what a load that began at `stamp` read. It is trusted only if nothing about `key` changed since (a
   * load that raced a change is kept as a base, never served), and never with `freshMs` 0 (kept as a base only).
   * Answers whether it is trusted.
   */
  store(key: string, value: V, stamp: FreshnessStamp): boolean {
    if (this.options.entriesMax <= 0) return false;
    const held = this.entries.get(key);
    // A load that began before the one held never replaces it, whichever ended last.
    if (held && held.stamp.mark > stamp.mark) return false;
    this.entries.set(key, { value, stamp });
    return this.enabled && this.freshness.unchangedSince(key, stamp);
  }

  /** A value known to be exact now (this replica's own write, or an announcement that carries it). */
  set(key: string, value: V): void {
    this.freshness.noteChange(key);
    this.store(key, value, this.freshness.begin());
  }

  /**
   * The value of `key` if it may be served, else the answer of a load, shared by every reader of the key while
   * it runs and stored for the next ones.
   */
  read(key: string, load: () => Promise<V>): Promise<V> {
    const known = this.get(key);
    if (known !== undefined) {
      this.refreshAhead(key, load);
      return Promise.resolve(known);
    }
    if (!this.enabled) return load();
    const inFlight = this.loading.get(key);
    if (inFlight) {
      this.counts.joined += 1;
      return inFlight.promise;
    }
    this.counts.loads += 1;
    return this.startLoad(key, load);
  }

  /** The reload `refreshAheadShare` asks for, when the answer just served is old enough and none runs yet. */
  private refreshAhead(key: string, load: () => Promise<V>): void {
    const share = this.options.refreshAheadShare;
    if (share === undefined || this.loading.has(key)) return;
    const entry = this.entries.get(key);
    if (!entry || !this.freshness.olderThan(key, entry.stamp, share)) return;
    this.counts.refreshes += 1;
    // Nobody waits for it: a failed reload leaves the answer held until it expires, and the next read that
    // misses loads again (and sees the error).
    this.startLoad(key, load).catch(() => undefined);
  }

  private startLoad(key: string, load: () => Promise<V>): Promise<V> {
    const stamp = this.freshness.begin();
    const promise = load().then(
      (value) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        this.store(key, value, stamp);
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, { stamp, promise });
    return promise;
  }

  /** `key` changed: its entry is dropped, and a load in flight is left to its readers but never stored. */
  invalidate(key: string): void {
    this.counts.invalidations += 1;
    this.entries.delete(key);
    this.loading.delete(key);
    this.freshness.noteChange(key);
  }

  /** `key` changed: nothing loaded before now is served, but the entry stays as a base for the next load. */
  distrust(key: string): void {
    this.counts.invalidations += 1;
    this.loading.delete(key);
    this.freshness.noteChange(key);
  }

  /** Everything changed (a rare event that cannot name its keys, such as a revoked API key): nothing is kept. */
  invalidateAll(): void {
    this.counts.invalidations += 1;
    this.entries.clear();
    this.loading.clear();
    this.freshness.noteAllChanged();
  }

  /** Announcements may be missed from now on: nothing is served from memory until `resume`. */
  suspend(): void {
    this.suspended = true;
    this.loading.clear();
    this.freshness.noteAllChanged();
  }

  /** Announcements flow again: what was loaded before is not trusted, what is loaded from now on is. */
  resume(): void {
    this.freshness.noteAllChanged();
    this.loading.clear();
    this.suspended = false;
  }
}
