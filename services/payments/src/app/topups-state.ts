import { InsertBatcher } from '@mtx/shared/insert-batcher';
import { WriteGate } from '@mtx/shared/write-gate';
import { BoundedCache } from '@mtx/shared/bounded-cache';
import { FreshCache } from '@mtx/shared/fresh-cache';
import type { ProviderAsset } from '../providers/provider';
import type { TopupDocument, TopupEventDocument, TopupSequenceDocument } from '../store/payments-store';

import type { TopupsOptions, TopupView } from './topup-types';
import { cachedDocumentsMax, customerHeadsCachedMax, slotAttemptsMax } from './topup-rules';
import { ClaimedSequence } from '@mtx/shared/claimed-sequence';

/** Everything the top-ups keep between calls: ports, caches, batchers, cursors and counters. */
export function createTopupsState(options: TopupsOptions) {
  const { store, clock, logger, providers, wallet } = options;
  const assetCache = new Map<string, { loadedAtMs: number; assets: ProviderAsset[] }>();
  // Caches of immutable documents (insert-only collections, so never stale; freshness comes from probing the next `_id`): top-ups, their records, credits the wallet has, customer slots.
  const topupCache = new BoundedCache<TopupDocument>(cachedDocumentsMax);
  const eventCache = new BoundedCache<TopupEventDocument[]>(cachedDocumentsMax);
  const appliedCache = new BoundedCache<true>(cachedDocumentsMax);
  const customerSlotCache = new BoundedCache<{ topupId: number; createdAt: Date }>(cachedDocumentsMax);
  const settledCache = new BoundedCache<true>(cachedDocumentsMax);
  const sequenceCache = new BoundedCache<TopupSequenceDocument>(cachedDocumentsMax);
  // The private creation sequence (`topup_sequence` `_id: "<n>"`) and each customer's list (`<customer>:<n>`), both
  // gapless from 1 and claimed by insert; their heads are found by galloping and then held in memory.
  const creationSequence = new ClaimedSequence(
    async (id) =>
      sequenceCache.get(id) !== undefined || (await store.topupSequence.findOne({ _id: id }, { projection: { _id: 1 } })) !== null,
    { headsMax: 1, attemptsMax: slotAttemptsMax, idOf: (_key, position) => String(position) },
  );
  const customerTopupNumbers = new ClaimedSequence(
    async (id) => (await store.customerTopups.findOne({ _id: id }, { projection: { _id: 1 } })) !== null,
    { headsMax: customerHeadsCachedMax, attemptsMax: slotAttemptsMax },
  );
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
    topupCache,
    eventCache,
    appliedCache,
    customerSlotCache,
    settledCache,
    sequenceCache,
    creationSequence,
    customerTopupNumbers,
    writeGate,
    eventInserts,
    pendingCache,
    /** The last position of the creation sequence this replica knows of (app/topup-ids.ts). */
    owedCancellations,
    /** The next position of the creation sequence the expiry sweep looks at; found a look-back behind now after a restart. */
    expiryNextPosition: undefined as number | undefined,
    /** The next position of the creation sequence reconciliation asks about; found again after each round. */
    reconcileNextPosition: undefined as number | undefined,
  };
}

export type TopupsState = ReturnType<typeof createTopupsState>;

/** The creation sequence has one key: every top-up of the deployment. */
export const creationSequenceKey = 'topups';

export function forget(state: TopupsState, customerId: string) {
  state.pendingCache.invalidate(customerId);
}

export function changed(state: TopupsState, customerId: string) {
  forget(state, customerId);
  state.options.publishChanged?.(customerId);
}
