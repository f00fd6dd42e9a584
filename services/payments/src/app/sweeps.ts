import type { TopupDocument } from '../store/payments-store';

import { applyConfirmedTransaction } from './crediting';
import { providerNamed } from './assets';
import { cancelAtProvider, expireOne } from './expiry';
import { lastSequencePosition, sequenceEntry } from './topup-ids';
import { loadTopup } from './topup-reads';
import type { TopupsState } from './topups-state';

/**
 * The sweeps (expiry, reconciliation) find their top-ups by walking the private creation sequence (app/topup-ids.ts),
 * not by a range query on expiry, and not by public id (random): positions are claimed without gaps, in the order
 * quotes start, and every quote lasts as long (`quoteWindowMs`), so positions come in expiry order up to the moments
 * between reading the clock and winning the claim (and replicas' clock skew). Each read is by `_id` (the position's
 * entry, then its top-up), so a pass costs the top-ups it looks at however many are stored; a range query costs a
 * scan of every top-up on a store that cannot use a secondary index for it, every interval, on the database the
 * payment path writes to.
 */

/** How far out of expiry order a position may be; a walk positioned by time starts this much earlier. */
export const walkDisorderMs = 60_000;
/** Positions looked at, past a claim without its top-up, before a position search gives up on a run of them. */
const holesScannedMax = 64;
/**
 * A claimed position whose top-up is not stored after this never will be (its creation failed after the claim): the
 * expiry walk steps over it. Younger, it may be a creation still waiting on the provider, so the walk waits.
 */
export const claimAbandonedAfterMs = 5 * 60_000;

/** A pass reads at most this many top-ups: the ones it acts on, and claims without top-ups or out of its window. */
function readsPerPassMax(batchSize: number): number {
  return 2 * batchSize + holesScannedMax;
}

/** The stored top-up at this position, without keeping it in the read cache (a walk's top-ups are mostly cold). */
async function topupAt(state: TopupsState, position: number): Promise<TopupDocument | null> {
  const entry = await sequenceEntry(state, position);
  return entry ? loadTopup(state, String(entry.topup_id), false) : null;
}

/** Whether the claim of a position without a top-up is old enough that its top-up will never be stored. */
async function claimAbandoned(state: TopupsState, position: number): Promise<boolean> {
  const entry = await sequenceEntry(state, position);
  return entry === null || state.clock.now().getTime() - entry.claimed_at.getTime() >= claimAbandonedAfterMs;
}

/**
 * The first position at or after which quotes may end after `sinceMs` (`last + 1` when none may): a bisection over
 * positions, each probe two reads, `walkDisorderMs` early so that positions slightly out of order are not skipped.
 * Where a probe meets a run of claims without top-ups it errs early, which costs a walk a few more reads, never a
 * top-up.
 */
async function firstPositionEndingAfter(state: TopupsState, sinceMs: number, last: number): Promise<number> {
  const boundaryMs = sinceMs - walkDisorderMs;
  let low = 1;
  let high = last + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    let probe: TopupDocument | null = null;
    let probed = middle;
    for (; probed < Math.min(high, middle + holesScannedMax); probed++) {
      probe = await topupAt(state, probed);
      if (probe) break;
    }
    if (probe && probe.expires_at.getTime() <= boundaryMs) low = probed + 1;
    else high = middle;
  }
  return low;
}

/** Where a walk starts after a restart: the first position whose quote ended within the look-back, or is still open. */
function lookBackStart(state: TopupsState, last: number): Promise<number> {
  return firstPositionEndingAfter(state, state.clock.now().getTime() - state.options.reconcileLookbackMs, last);
}

/**
 * One bounded pass of the expiry sweep: from where the previous pass stopped, the next `batchSize` top-ups whose
 * quote has ended, in creation order, up to the first still open; fails those that received nothing and cancels their
 * invoices, then retries cancellations the provider refused before. A restarted process looks back
 * RECONCILE_LOOKBACK_MS.
 */
export async function expireDue(state: TopupsState, batchSize: number): Promise<{ expired: number; checked: number }> {
  const nowMs = state.clock.now().getTime();
  const last = await lastSequencePosition(state);
  let next = state.expiryNextPosition ?? (await lookBackStart(state, last));
  let expired = 0;
  let checked = 0;
  for (let reads = 0; next <= last && checked < batchSize && reads < readsPerPassMax(batchSize); reads++) {
    const topup = await topupAt(state, next);
    if (!topup) {
      if (!(await claimAbandoned(state, next))) break;
      next += 1;
      continue;
    }
    if (topup.expires_at.getTime() > nowMs) break;
    checked += 1;
    try {
      if (await expireOne(state, topup)) expired += 1;
    } catch (error) {
      // Stop here so the next pass starts with this top-up again.
      state.logger.warn({ err: error, topup_id: topup.id }, 'could not expire a top-up; the next sweep retries');
      break;
    }
    next += 1;
  }
  state.expiryNextPosition = next;
  for (const topupKey of [...state.owedCancellations].slice(0, batchSize)) {
    const topup = await state.store.topups.findOne({ _id: topupKey });
    if (topup) await cancelAtProvider(state, topup);
    else state.owedCancellations.delete(topupKey);
  }
  return { expired, checked };
}

/**
 * One bounded pass of reconciliation: asks the provider about the next `batchSize` top-ups whose quote is open or
 * ended within the look-back, in creation order from where the previous pass stopped, and credits any confirmed payment
 * a lost postback left behind. `wrapped`: the pass reached the newest top-up, and the next starts over.
 */
export async function reconcileStep(
  state: TopupsState,
  batchSize: number,
): Promise<{ checked: number; credited: number; wrapped: boolean }> {
  const cutoffMs = state.clock.now().getTime() - state.options.reconcileLookbackMs;
  const last = await lastSequencePosition(state);
  let next = state.reconcileNextPosition ?? (await lookBackStart(state, last));
  let checked = 0;
  let credited = 0;
  for (let reads = 0; next <= last && checked < batchSize && reads < readsPerPassMax(batchSize); reads++, next++) {
    const topup = await topupAt(state, next);
    // A claim without its top-up (failed, or still being created: the next round sees it) has nothing to ask about.
    if (!topup || topup.expires_at.getTime() <= cutoffMs) continue;
    checked += 1;
    try {
      const invoice = await providerNamed(state, topup.provider).getInvoice(topup.invoice_id);
      for (const transaction of invoice.transactions) {
        if (transaction.status !== 'confirmed') continue;
        const { newlyCredited } = await applyConfirmedTransaction(state, topup, topup.provider, transaction);
        if (newlyCredited) {
          credited += 1;
          state.logger.info(
            { topup_id: topup.id, provider_transaction_id: transaction.transactionId },
            'reconciliation credited a payment no postback delivered',
          );
        }
      }
    } catch (error) {
      state.logger.warn({ err: error, topup_id: topup.id }, 'reconciliation could not check a top-up; it is retried on the next pass');
    }
  }
  const wrapped = next > last;
  state.reconcileNextPosition = wrapped ? undefined : next;
  return { checked, credited, wrapped };
}
