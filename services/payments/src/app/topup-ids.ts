import crypto from 'node:crypto';
import { AppError } from '@mtx/shared/errors';
import { insertIfAbsent } from '@mtx/shared/mongo';
import type { TopupSequenceDocument } from '../store/payments-store';

import type { TopupsState } from './topups-state';
import { creationSequenceKey } from './topups-state';

/**
 * Top-up ids, the private creation sequence and each customer's list of top-ups, all claimed by insert.
 *
 * The public id is a random integer in [1, 2^53 - 1], so that nothing outside can count top-ups from ids, guess
 * another's id, or tell two customers' order. Why all 53 bits: they are the most a JSON number carries exactly to
 * every client (the API's `id` is an integer), the provider sees the id as our order id, and at that width even
 * 10^8 top-ups make a draw collide about once in 10^8, so uniqueness by insert almost never draws twice; fewer bits
 * would make ids guessable by walking the space and collisions frequent as volume grows.
 *
 * The sweeps need what random ids cannot give: every top-up in creation order, and the newest found without a
 * scan. That is the creation sequence, private to this service: `topup_sequence` `_id: "<n>"`, n gapless from 1
 * and claimed by insert (so its last is found by galloping), each pointing at the public id it was claimed for.
 */

/** Draws of a public id before giving up: at 53 bits a draw collides with an existing id almost never. */
const publicIdDrawsMax = 8;

/** A uniformly random integer in [1, 2^53 - 1]: the top 53 bits of 64 random ones, drawn again on 0. */
export function randomTopupId(): number {
  for (;;) {
    const id = Number(crypto.randomBytes(8).readBigUInt64BE() >> 11n);
    if (id > 0) return id;
  }
}

/** The creation sequence's entry at `position`; entries are immutable, so a found one is remembered. */
export async function sequenceEntry(state: TopupsState, position: number): Promise<TopupSequenceDocument | null> {
  const key = String(position);
  const cached = state.sequenceCache.get(key);
  if (cached) return cached;
  const entry = await state.store.topupSequence.findOne({ _id: key });
  if (entry) state.sequenceCache.set(key, entry);
  return entry;
}

/** The last position of the creation sequence (0 when none), found by galloping from the last one this replica knows. */
export function lastSequencePosition(state: TopupsState): Promise<number> {
  return state.creationSequence.head(creationSequenceKey);
}

/** Claims a random public id by inserting it (a collision draws again), then its place in the creation sequence. */
export async function claimTopupId(state: TopupsState): Promise<number> {
  const claimedAt = state.clock.now();
  let topupId = 0;
  for (let draw = 0; draw < publicIdDrawsMax && topupId === 0; draw++) {
    const candidate = randomTopupId();
    if (await insertIfAbsent(state.store.topupIdClaims, { _id: String(candidate), claimed_at: claimedAt })) topupId = candidate;
  }
  if (topupId === 0) throw new AppError('unavailable', 'could not allocate a top-up id; retry shortly');
  await state.creationSequence.claim(creationSequenceKey, async (position) => {
    const entry = { _id: position, topup_id: topupId, claimed_at: claimedAt };
    if (!(await insertIfAbsent(state.store.topupSequence, entry))) return false;
    state.sequenceCache.set(entry._id, entry);
    return true;
  });
  return topupId;
}

/** How many top-ups the customer has (its list `<customer>:<n>` is gapless from 1). */
export function customerHead(state: TopupsState, customerId: string): Promise<number> {
  return state.customerTopupNumbers.head(customerId);
}

export async function appendCustomerTopup(state: TopupsState, customerId: string, topupId: number, createdAt: Date): Promise<void> {
  await state.customerTopupNumbers.claim(customerId, async (slot) => {
    if (!(await insertIfAbsent(state.store.customerTopups, { _id: slot, topup_id: topupId, created_at: createdAt }))) return false;
    state.customerSlotCache.set(slot, { topupId, createdAt });
    return true;
  });
}
