import { insertIfAbsent } from '@mtx/shared/mongo';
import { claimKey, type OccupancyDocument } from '../domain/model';
import type { BillingCollections } from './collections';

/**
 * Occupancy changes are decided by claims: whoever inserts claim `<seat>:<generation+1>` owns the next
 * state. A writer that died between its claim and the occupancy update leaves the document one generation
 * behind; the claim holds the intended state, so any reader can finish the job.
 */
export async function repairOccupancy(collections: BillingCollections, occupancy: OccupancyDocument): Promise<OccupancyDocument> {
  let current = occupancy;
  for (;;) {
    const next = await collections.claims.findOne({ _id: claimKey(current._id, current.generation + 1) });
    if (!next) return current;
    current = {
      ...current,
      generation: next.generation,
      account_id: next.account_id,
      label: next.label,
      released: next.released,
      updated_at: next.created_at,
    };
    await collections.occupancy.updateOne(
      { _id: current._id, generation: { $lt: current.generation } },
      {
        $set: {
          generation: current.generation,
          account_id: current.account_id,
          label: current.label,
          released: current.released,
          updated_at: current.updated_at,
        },
      },
    );
  }
}

/**
 * Moves a seat's occupancy from `from` to the next generation. Returns the new occupancy, or null when
 * another writer claimed that generation first (the caller re-reads and decides again).
 */
export async function claimOccupancy(
  collections: BillingCollections,
  from: OccupancyDocument,
  next: { account_id: string | null; label: string | null; released: boolean },
  now: Date,
): Promise<OccupancyDocument | null> {
  const generation = from.generation + 1;
  const won = await insertIfAbsent(collections.claims, {
    _id: claimKey(from._id, generation),
    seat_id: from._id,
    generation,
    ...next,
    created_at: now,
  });
  if (!won) {
    // Whoever holds that generation may have died before writing the occupancy; make sure it is written.
    await repairOccupancy(collections, from);
    return null;
  }
  const occupancy: OccupancyDocument = { ...from, generation, ...next, updated_at: now };
  await collections.occupancy.updateOne(
    { _id: from._id },
    { $set: { generation, account_id: next.account_id, label: next.label, released: next.released, updated_at: now } },
  );
  return occupancy;
}
