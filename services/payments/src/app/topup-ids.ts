import { lastPresent } from '@mtx/shared/gallop';
import { AppError } from '@mtx/shared/errors';
import { insertIfAbsent } from '@mtx/shared/mongo';

import type { TopupsState } from './topups-state';
import { slotAttemptsMax, customerHeadsCachedMax } from './topup-rules';

/** Integer top-up ids and each customer's list of top-ups, both claimed by insert. */

export async function idClaimed(state: TopupsState, n: number) {
  return (await state.store.topupIdClaims.findOne({ _id: String(n) }, { projection: { _id: 1 } })) !== null;
}

/** The highest id claimed so far (0 when none), found by galloping from the last one this replica knows. */
export async function lastClaimedId(state: TopupsState): Promise<number> {
  const last = await lastPresent(state.lastTopupId, (n) => idClaimed(state, n));
  state.lastTopupId = Math.max(state.lastTopupId, last);
  return last;
}

/** Claims the next integer id by inserting it; ids stay gapless, so the last one is found by galloping. */
export async function claimTopupId(state: TopupsState): Promise<number> {
  let candidate = (await lastClaimedId(state)) + 1;
  for (let attempt = 0; attempt < slotAttemptsMax; attempt++) {
    if (await insertIfAbsent(state.store.topupIdClaims, { _id: String(candidate), claimed_at: state.clock.now() })) {
      state.lastTopupId = Math.max(state.lastTopupId, candidate);
      return candidate;
    }
    candidate = (await lastPresent(candidate, (n) => idClaimed(state, n))) + 1;
  }
  throw new AppError('unavailable', 'could not allocate a top-up id; retry shortly');
}

export async function customerHead(state: TopupsState, customerId: string): Promise<number> {
  const head = await lastPresent(
    state.customerHeads.get(customerId) ?? 0,
    async (n) => (await state.store.customerTopups.findOne({ _id: `${customerId}:${n}` }, { projection: { _id: 1 } })) !== null,
  );
  rememberCustomerHead(state, customerId, head);
  return head;
}

export function rememberCustomerHead(state: TopupsState, customerId: string, head: number): void {
  if (!state.customerHeads.has(customerId) && state.customerHeads.size >= customerHeadsCachedMax) state.customerHeads.shift();
  state.customerHeads.set(customerId, Math.max(head, state.customerHeads.get(customerId) ?? 0));
}

export async function appendCustomerTopup(state: TopupsState, customerId: string, topupId: number, createdAt: Date): Promise<void> {
  let n = await customerHead(state, customerId);
  for (let attempt = 0; attempt < slotAttemptsMax; attempt++) {
    n += 1;
    if (await insertIfAbsent(state.store.customerTopups, { _id: `${customerId}:${n}`, topup_id: topupId, created_at: createdAt })) {
      state.customerSlotCache.set(`${customerId}:${n}`, { topupId, createdAt });
      rememberCustomerHead(state, customerId, n);
      return;
    }
  }
  throw new AppError('unavailable', 'could not record the top-up for the customer; retry shortly');
}
