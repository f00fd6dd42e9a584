import { findEntriesMax } from '@mtx/shared/service-contract';
import { formatUnits } from '../domain/money';
import { deriveTopupStatus, type TopupProgress } from '../domain/topup-state';
import type { TopupDocument, TopupEventDocument } from '../store/payments-store';
import type { TopupSnapshot } from '../clients/inbox';

import type { TopupsState } from './topups-state';
import type { TopupView } from './topup-types';
import { eventsPerTopupMax } from './topup-rules';

/** A top-up and its records as stored (insert-only, so cached), and the view a caller gets. */

/** A top-up's records in order. Records never change, so only the slots past the remembered ones are read. */
export async function readEvents(state: TopupsState, topupId: number): Promise<TopupEventDocument[]> {
  const events = [...(state.eventCache.get(String(topupId)) ?? [])];
  for (let seq = events.length + 1; seq <= eventsPerTopupMax; seq++) {
    const event = await state.store.events.findOne({ _id: `${topupId}:${seq}` });
    if (!event) break;
    events.push(event);
  }
  if (events.length > 0) state.eventCache.set(String(topupId), events);
  return events;
}

export async function loadTopup(state: TopupsState, topupKey: string, remember = true): Promise<TopupDocument | null> {
  const cached = state.topupCache.get(topupKey);
  if (cached) return cached;
  const topup = await state.store.topups.findOne({ _id: topupKey });
  if (topup && remember) state.topupCache.set(topupKey, topup);
  return topup;
}

/** The top-up an inbox record carries; JSON keeps its dates as strings. */
export function snapshotOf(topup: TopupDocument): TopupSnapshot {
  return { ...topup, created_at: topup.created_at.toISOString(), expires_at: topup.expires_at.toISOString() };
}

/**
 * The top-up of an inbox record: the one this replica has in memory, else the record's copy (a top-up is never
 * updated, so the copy is the stored document), else the store's.
 */
export async function topupOfRecord(
  state: TopupsState,
  topupId: number,
  snapshot: TopupSnapshot | undefined,
): Promise<TopupDocument | null> {
  const key = String(topupId);
  const cached = state.topupCache.get(key);
  if (cached) return cached;
  if (snapshot?.id !== topupId || snapshot._id !== key) return loadTopup(state, key);
  const topup: TopupDocument = { ...snapshot, created_at: new Date(snapshot.created_at), expires_at: new Date(snapshot.expires_at) };
  if (Number.isNaN(topup.created_at.getTime()) || Number.isNaN(topup.expires_at.getTime())) return loadTopup(state, key);
  state.topupCache.set(key, topup);
  return topup;
}

/** The wallet entry id of a payment record's credit: `topup:<provider>:<transaction>` for `tx:<provider>:<transaction>`. */
export function creditEntryIdOfKey(key: string): string {
  return `topup:${key.slice('tx:'.length)}`;
}

/**
 * Asks the wallet which of these payment records' credits it has (in order) and remembers the ones it has.
 * When the wallet cannot be asked, answers false for each: a view then shows only what is known, and a crediting
 * batch credits again (the wallet's replay).
 */
export async function askWalletApplied(state: TopupsState, records: Array<{ customerId: string; key: string }>): Promise<boolean[]> {
  const applied: boolean[] = [];
  try {
    for (let start = 0; start < records.length; start += findEntriesMax) {
      const chunk = records.slice(start, start + findEntriesMax);
      applied.push(
        ...(await state.wallet.creditsApplied(
          chunk.map((record) => ({ customerId: record.customerId, entryId: creditEntryIdOfKey(record.key) })),
        )),
      );
    }
  } catch (error) {
    state.logger.warn({ err: error, records: records.length }, 'could not ask the wallet which credits it has');
    return records.map(() => false);
  }
  records.forEach((record, index) => {
    if (applied[index]) state.appliedCache.set(record.key, true);
  });
  return applied;
}

export function view(state: TopupsState, topup: TopupDocument, progress: TopupProgress): TopupView {
  return {
    id: topup.id,
    customer_id: topup.customer_id,
    status: deriveTopupStatus(topup.amount_eur_cents, progress, topup.expires_at, state.clock.now()),
    amount_eur_cents: topup.amount_eur_cents,
    credited_eur_cents: progress.creditedEurCents,
    deposit_address: topup.deposit_address,
    deposit_amount: topup.deposit_amount,
    deposit_amount_decimal: formatUnits(BigInt(topup.deposit_amount), topup.decimals),
    asset_code: topup.asset_code,
    blockchain_code: topup.blockchain_code,
    expires_at: topup.expires_at.toISOString(),
    created_at: topup.created_at.toISOString(),
    is_evm: topup.is_evm,
    ...(topup.payment_uri ? { payment_uri: topup.payment_uri } : {}),
    decimals: topup.decimals,
  };
}

/**
 * What the customer sees as credited: payments whose wallet credit is done (the wallet has the entry), so a
 * top-up never reads `paid` before the balance has the money. A recorded payment whose credit is still owed (the
 * wallet was unreachable) shows up once the next delivery or reconciliation pass finishes it; while the wallet
 * cannot be asked, only what this replica knows to be credited counts.
 */
export async function customerProgress(state: TopupsState, topup: TopupDocument, events: TopupEventDocument[]): Promise<TopupProgress> {
  const payments = events.filter((event) => event.kind === 'payment' && event.eur_cents > 0);
  const unknown = payments.filter((event) => !state.appliedCache.get(event.key));
  if (unknown.length > 0)
    await askWalletApplied(
      state,
      unknown.map((event) => ({ customerId: topup.customer_id, key: event.key })),
    );
  return {
    creditedEurCents: payments.reduce((sum, event) => sum + (state.appliedCache.get(event.key) ? event.eur_cents : 0), 0),
    expired: events.some((event) => event.kind === 'expired'),
  };
}
