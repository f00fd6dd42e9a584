import { ChangeLog } from './change-log';

/** When a load began: the change counter's value then, and the time (for the freshness window). */
export interface FreshnessStamp {
  mark: number;
  atMs: number;
}

/**
 * The one rule every read cache in the services follows. An answer may be served from memory while it is younger
 * than `freshMs` and no change of its key was noted after its load began. Changes are noted by this replica's own
 * writes and by other replicas' NATS announcements, so `freshMs` only bounds how long a lost announcement can
 * leave an answer stale. Marks come from one counter, so a change and a load that begin in the same millisecond
 * are still ordered, and a load that raced a change is never trusted. Bounded by the change log's size.
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

  /** Whether an answer whose load began at `stamp` may still be served. */
  trusts(key: string, stamp: FreshnessStamp): boolean {
    return this.freshMs > 0 && this.now() - stamp.atMs <= this.freshMs && this.unchangedSince(key, stamp);
  }
}
