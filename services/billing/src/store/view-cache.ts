import { FreshCache } from '@mtx/shared/fresh-cache';
import type { FreshnessStamp } from '@mtx/shared/freshness';
import type { CustomerView } from '../domain/model';
import type { PointerRun } from './pointer-lists';

/** A customer's joined view as last read, with what a reload needs to skip. */
export interface CachedView {
  /** null: the customer had no billing document (nothing bought yet). */
  revision: string | null;
  seats: PointerRun;
  servers: PointerRun;
  /** Released items never change again, so a reload skips them. */
  releasedIds: Set<string>;
  endedByCancellation: boolean;
  view: CustomerView;
}

/**
 * Each customer's joined view, kept while the customer's revision token is unchanged, in the shared FreshCache:
 * bounded, told of every revision change this replica writes or hears of (so a fresh read never trusts a view
 * loaded before a change, even one stored after it), suspended while announcements may be missed. A view that is
 * not trusted is still kept as the base of the next reload, which skips what cannot change.
 */
export class CustomerViewCache {
  readonly cache: FreshCache<CachedView>;

  constructor(
    entriesMax: number,
    /** How long a fresh read trusts an entry without re-reading the revision; 0: never. */
    freshMs: number,
  ) {
    this.cache = new FreshCache({ freshMs, entriesMax });
  }

  /** Taken before the read that loads or confirms a view. */
  begin(): FreshnessStamp {
    return this.cache.begin();
  }

  /** The last view read, trusted or not: the base of a reload. */
  get(customerId: string): CachedView | undefined {
    return this.cache.peek(customerId);
  }

  /** A view whose revision a read that began at `verified` found current (or just loaded). */
  remember(customerId: string, entry: CachedView, verified: FreshnessStamp): void {
    this.cache.store(customerId, entry, verified);
  }

  forget(customerId: string): void {
    this.cache.invalidate(customerId);
  }

  /** A revision change, this replica's or announced by another: what was loaded before it is not trusted. */
  noteChange(customerId: string): void {
    this.cache.distrust(customerId);
  }

  /** Another replica's revision change: a cached view of another revision is not trusted. */
  observeRevision(customerId: string, revision: string | null): void {
    if (this.cache.peek(customerId)?.revision !== revision) this.noteChange(customerId);
  }

  /** The view a fresh read may answer with, without reading the revision. */
  trusted(customerId: string): CachedView | undefined {
    return this.cache.get(customerId);
  }
}
