import { InsertBatcher } from '@mtx/shared/insert-batcher';
import { WriteGate } from '@mtx/shared/write-gate';
import { BoundedCache } from '@mtx/shared/bounded-cache';
import { FreshCache } from '@mtx/shared/fresh-cache';
import type { ProviderAsset } from '../providers/provider';
import type { TopupDocument, TopupEventDocument, TopupSequenceDocument } from '../store/payments-store';

import type { TopupsOptions, TopupView } from './topup-types';
import { cachedDocumentsMax, customerHeadsCachedMax } from './topup-rules';
import { LinkedMap } from '@mtx/shared/linked-map';

/** Everything the top-ups keep between calls: ports, caches, batchers, cursors and counters. */
export function createTopupsState(options: TopupsOptions) {
  const { store, clock, logger, providers, wallet } = options;
  const assetCache = new Map<string, { loadedAtMs: number; assets: ProviderAsset[] }>();
  const customerHeads = new LinkedMap<string, number>();
  // Caches of immutable documents (insert-only collections, so never stale; freshness comes from probing the next `_id`): top-ups, their records, credits the wallet has, customer slots.
  const topupCache = new BoundedCache<TopupDocument>(cachedDocumentsMax);
  const eventCache = new BoundedCache<TopupEventDocument[]>(cachedDocumentsMax);
  const appliedCache = new BoundedCache<true>(cachedDocumentsMax);
  const customerSlotCache = new BoundedCache<{ topupId: number; createdAt: Date }>(cachedDocumentsMax);
  const settledCache = new BoundedCache<true>(cachedDocumentsMax);
  const sequenceCache = new BoundedCache<TopupSequenceDocument>(cachedDocumentsMax);
  // Concurrent postbacks share store round trips; each record keeps its own insert outcome.
  const writeGate = new WriteGate(1);
  const eventInserts = new InsertBatcher(store.events, { gate: writeGate });
  // Per customer: the open top-ups as last computed, in the shared FreshCache (a computation that raced a change
  // is never served; suspended while other replicas' announcements may be missed).
  const pendingCache = new FreshCache<TopupView[]>({ freshMs: options.pendingFreshMs ?? 0, entriesMax: customerHeadsCachedMax });
  // Expired top-ups whose cancellation the provider refused; retried on every expiry pass.
  const owedCancellations = new Set<string>();
  return {
    options,
    store,
    clock,
    logger,
    providers,
    wallet,
    assetCache,
    customerHeads,
    topupCache,
    eventCache,
    appliedCache,
    customerSlotCache,
    settledCache,
    sequenceCache,
    writeGate,
    eventInserts,
    pendingCache,
    /** The last position of the creation sequence this replica knows of (app/topup-ids.ts). */
    lastSequencePosition: 0,
    owedCancellations,
    /** The next position of the creation sequence the expiry sweep looks at; found a look-back behind now after a restart. */
    expiryNextPosition: undefined as number | undefined,
    /** The next position of the creation sequence reconciliation asks about; found again after each round. */
    reconcileNextPosition: undefined as number | undefined,
  };
}

export type TopupsState = ReturnType<typeof createTopupsState>;

export function forget(state: TopupsState, customerId: string) {
  state.pendingCache.invalidate(customerId);
}

export function changed(state: TopupsState, customerId: string) {
  forget(state, customerId);
  state.options.publishChanged?.(customerId);
}
