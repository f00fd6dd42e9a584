import { ChangeLog } from './change-log';

/** When a load began: the change counter's value then, and the time (for the freshness window). */
export interface FreshnessStamp {
  mark: number;
  atMs: number;
}

/**
 * How much shorter than `freshMs` a key's window may be: each key has its own window, between three quarters of
 * `freshMs` and all of it (about a seventh more reloads on average than one window for all). Answers loaded
 * together (a restart, a reconnection that distrusted everything, the first credits of a load) would otherwise
 * all expire together, and every `freshMs` their reloads would reach the store in one burst: 200 customers' views
 * in billing took half a core of the store and billing for half a second, every 10 s, on the postback path. With
 * windows spread by key the reloads spread out within a few windows.
 */
export const windowSpreadShare = 0.25;

/**
 * Where a key's window falls between `1 - windowSpreadShare` and 1 of `freshMs`, in [0, 1): FNV-1a of the key,
 * then murmur3's finaliser, because ids that differ only in their last characters leave FNV's high bits alike.
 */
export function windowSpreadOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) / 2 ** 32;
}

/**
 * The one rule every read cache in the services follows. An answer may be served from memory while it is younger than
 * its key's window (at most `freshMs`, see windowSpreadShare) and no change of its key was noted after its load
 * began. Changes are noted by this replica's own writes and by other replicas' NATS announcements, so `freshMs` only
 * bounds how long a lost announcement can leave an answer stale. Marks come from one counter, so a change and a load
 * that begin in the same millisecond are still ordered, and a load that raced a change is never trusted. Bounded by
 * the change log's size.
 */
export class Freshness {
  private counter = 0;
  private readonly changes: ChangeLog;

  constructor(
    /** How long an answer may be served without a reload; 0 disables caching. */
    readonly freshMs: number,
    keysMax: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.changes = new ChangeLog(keysMax);
  }

  get enabled(): boolean {
    return this.freshMs > 0;
  }

  /** Taken when a load begins (before its first read), and kept with its answer. */
  begin(): FreshnessStamp {
    return { mark: this.counter, atMs: this.now() };
  }

  /** `key` changed: answers loaded before now are not trusted. */
  noteChange(key: string): void {
    this.counter += 1;
    this.changes.note(key, this.counter);
  }

  /** Every key changed (announcements may have been missed). */
  noteAllChanged(): void {
    this.counter += 1;
    this.changes.noteAll(this.counter);
  }

  /** Whether an answer whose load began at `stamp` reflects every change of `key` noted so far. */
  unchangedSince(key: string, stamp: FreshnessStamp): boolean {
    return this.changes.lastChange(key) <= stamp.mark;
  }

  /** How long answers for `key` are served without a reload: between three quarters of `freshMs` and all of it. */
  windowMs(key: string): number {
    return this.freshMs * (1 - windowSpreadShare * windowSpreadOf(key));
  }

  /** Whether an answer whose load began at `stamp` has lived more than `share` of its key's window. */
  olderThan(key: string, stamp: FreshnessStamp, share: number): boolean {
    return this.now() - stamp.atMs > this.windowMs(key) * share;
  }

  /** Whether an answer whose load began at `stamp` may still be served. */
  trusts(key: string, stamp: FreshnessStamp): boolean {
    return this.freshMs > 0 && this.now() - stamp.atMs <= this.windowMs(key) && this.unchangedSince(key, stamp);
  }
}
