import crypto from 'node:crypto';
import type { Collection } from 'mongodb';
import { claimKey, pointerKey, seatKey, type SeatDocument } from '../src/domain/model';
import type { BillingCollections } from '../src/store/billing-store';

/**
 * Seeds seats straight into billing's store, document for document as billing writes them, for benchmarks
 * and load tests that need thousands of seats without buying each one through the API.
 */
/** Inserts the documents 2,000 per command. */
export async function insertInChunks<T extends { _id: string }>(collection: Collection<T>, documents: T[]): Promise<void> {
  for (let index = 0; index < documents.length; index += 2_000)
    await collection.insertMany(documents.slice(index, index + 2_000) as any, { ordered: false });
}

export interface SeedSeat {
  customerId: string;
  accountId: string;
  anchor: Date;
  paidUntil: Date;
  nextActionAt: Date;
}

/** Writes seats exactly as billing stores them (seat, occupancy and its claim, pointer, account marker, revision). */
export async function seedSeats(collections: BillingCollections, seats: SeedSeat[], now: Date): Promise<string[]> {
  const seatDocuments: SeatDocument[] = [];
  const occupancy = [];
  const claims = [];
  const pointers = [];
  const accounts = [];
  const ordinals = new Map<string, number>();
  for (const seed of seats) {
    const id = `seat_bench${crypto.randomBytes(9).toString('hex')}`;
    const ordinal = ordinals.get(seed.customerId) ?? 0;
    ordinals.set(seed.customerId, ordinal + 1);
    seatDocuments.push({
      _id: id,
      customer_id: seed.customerId,
      ordinal,
      bonus: false,
      status: 'active',
      anchor_at: seed.anchor,
      cycle: 1,
      paid_until: seed.paidUntil,
      grace_ends_at: null,
      next_action_at: seed.nextActionAt,
      release_reason: null,
      released_at: null,
      notice: null,
      created_at: seed.anchor,
      updated_at: now,
    });
    occupancy.push({
      _id: id,
      customer_id: seed.customerId,
      generation: 1,
      account_id: seed.accountId,
      label: `Account ${seed.accountId}`,
      released: false,
      updated_at: now,
    });
    claims.push({
      _id: claimKey(id, 1),
      seat_id: id,
      generation: 1,
      account_id: seed.accountId,
      label: `Account ${seed.accountId}`,
      released: false,
      created_at: now,
    });
    pointers.push({
      _id: pointerKey(seed.customerId, 'seat', ordinal),
      customer_id: seed.customerId,
      kind: 'seat' as const,
      ordinal,
      item_id: id,
      created_at: now,
    });
    accounts.push({
      _id: seatKey(seed.customerId, seed.accountId),
      customer_id: seed.customerId,
      account_id: seed.accountId,
      seat_id: id,
      created_at: now,
    });
  }
  await insertInChunks(collections.seats, seatDocuments);
  await insertInChunks(collections.occupancy, occupancy);
  await insertInChunks(collections.accounts, accounts);
  await insertInChunks(collections.claims, claims);
  await insertInChunks(collections.pointers, pointers);
  // A customer document's `_id` is the customer id.
  await insertInChunks(
    collections.customers,
    [...ordinals].map(([customerId, count]) => ({
      _id: customerId,
      revision: crypto.randomBytes(9).toString('base64url'),
      seat_count_hint: count,
      server_count_hint: 0,
      updated_at: now,
    })),
  );
  return seatDocuments.map((seat) => seat._id);
}
