import { Freshness, type FreshnessStamp } from '@mtx/shared/freshness';
import type { CustomerView } from '../domain/model';
import { LinkedMap } from '@mtx/shared/linked-map';

/** A customer's joined view as last read, with what a reload needs to skip. */
export interface CachedView {
  /** null: the customer had no billing document (nothing bought yet). */
  revision: string | null;
  /** When the read that last confirmed the revision against the store began. */
  verified: FreshnessStamp;
  seatIds: string[];
  serverIds: string[];
  /** Released items never change again, so a reload skips them. */
  releasedIds: Set<string>;
  endedByCancellation: boolean;
  view: CustomerView;
}

/**
 * Each customer's joined view, kept while the customer's revision token is unchanged: bounded (least recently
 * used out), and told of every revision change this replica writes or hears of, so a fresh read never trusts a
 * view loaded before a change, even one stored after it (a read that raced the write): the shared `Freshness`
 * rule. A view that is not trusted is still kept as the base of the next reload, which skips what cannot change.
 */
export class CustomerViewCache {
  private readonly entries = new LinkedMap<string, CachedView>();
  private readonly freshness: Freshness;

  constructor(
    private readonly entriesMax: number,
    /** How long a fresh read trusts an entry without re-reading the revision; 0: never. */
    freshMs: number,
  ) {
    this.freshness = new Freshness(freshMs, entriesMax);
  }

  /** Taken before the read that loads or confirms a view. */
  begin(): FreshnessStamp {
    return this.freshness.begin();
  }

  get(customerId: string): CachedView | undefined {
    return this.entries.get(customerId);
  }

  /** Marks an entry just confirmed against the store, and most recently used. */
  confirm(customerId: string, entry: CachedView, verified: FreshnessStamp): void {
    entry.verified = verified;
    this.entries.delete(customerId);
    this.entries.set(customerId, entry);
  }

  remember(customerId: string, entry: CachedView): void {
    if (this.entriesMax <= 0) return;
    this.entries.delete(customerId);
    this.entries.set(customerId, entry);
    while (this.entries.size > this.entriesMax) this.entries.shift();
  }

  forget(customerId: string): void {
    this.entries.delete(customerId);
  }

  /** A revision change, this replica's or announced by another: what was loaded before it is not trusted. */
  noteChange(customerId: string): void {
    this.freshness.noteChange(customerId);
  }

  /** Another replica's revision change: a cached view of another revision is not trusted. */
  observeRevision(customerId: string, revision: string | null): void {
    if (this.entries.get(customerId)?.revision !== revision) this.noteChange(customerId);
  }

  /** Whether a fresh read may answer from `entry` without reading the revision. */
  trusted(customerId: string, entry: CachedView): boolean {
    return this.freshness.trusts(customerId, entry.verified);
  }
}
