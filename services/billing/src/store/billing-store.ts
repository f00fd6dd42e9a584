import crypto from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import {
  claimKey,
  pointerKey,
  type AccountDocument,
  type ClaimDocument,
  type CustomerDocument,
  type CustomerView,
  type LeaseDocument,
  type OccupancyDocument,
  type PointerDocument,
  type PointerKind,
  type SeatDocument,
  type SeatState,
  type ServerCancellationDocument,
  type ServerDocument,
  type ServerState,
  type SettingsDocument,
} from '../domain/model';

/**
 * Billing's collections. Hot reads are `_id` lookups only (FerretDB answers nothing else from an index):
 * a customer's seats are found through pointer documents `<customer>:seat:<n>`, and a reader keeps each
 * customer's joined view in memory for as long as the customer's revision token is unchanged.
 *
 * Documents that are updated in place are spread over `shards` collections by a hash of their customer id
 * (`seats_07`, ...), so one customer's documents share a collection and a renewal pass can write a
 * customer's seats in one command. On FerretDB 1.x an update or delete by `_id` costs time proportional to the size of its
 * collection (measured: 0.9 ms at 100 documents, 18 ms at 10,000), so small collections keep the scheduler's
 * per-charge write cheap; on MongoDB `shards: 1` gives plain single collections. Insert-only collections
 * (claims, leases, cancellations) are not sharded: inserts cost the same at any size. Pointers are sharded by
 * customer, so listing a customer's pointers is one `$in` query over a small collection.
 */
/** Every accessor takes the customer id: a customer's documents of one kind all live in one shard. */
export interface BillingCollections {
  customers(customerId: string): Collection<CustomerDocument>;
  settings(customerId: string): Collection<SettingsDocument>;
  seats(customerId: string): Collection<SeatDocument>;
  occupancy(customerId: string): Collection<OccupancyDocument>;
  servers(customerId: string): Collection<ServerDocument>;
  accounts(customerId: string): Collection<AccountDocument>;
  /** Every shard, for scans (the scheduler's due query). */
  seatShards: Array<Collection<SeatDocument>>;
  serverShards: Array<Collection<ServerDocument>>;
  /** Pointer documents of one customer (all in one shard). */
  pointers(customerId: string): Collection<PointerDocument>;
  claims: Collection<ClaimDocument>;
  serverCancellations: Collection<ServerCancellationDocument>;
  leases: Collection<LeaseDocument>;
}

/** FNV-1a: a stable, cheap spread of ids over shards. */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

export function billingCollections(database: Db, shards = 1): BillingCollections {
  const sharded = <T extends { _id: string }>(name: string) => {
    const list = Array.from({ length: shards }, (_, index) => database.collection<T>(shards === 1 ? name : `${name}_${String(index).padStart(2, '0')}`));
    return { list, pick: (id: string) => list[shards === 1 ? 0 : shardOf(id, shards)]! };
  };
  const customers = sharded<CustomerDocument>('customers');
  const settings = sharded<SettingsDocument>('settings');
  const seats = sharded<SeatDocument>('seats');
  const occupancy = sharded<OccupancyDocument>('occupancy');
  const servers = sharded<ServerDocument>('servers');
  const accounts = sharded<AccountDocument>('accounts');
  const pointers = sharded<PointerDocument>('pointers');
  return {
    customers: customers.pick,
    settings: settings.pick,
    seats: seats.pick,
    occupancy: occupancy.pick,
    servers: servers.pick,
    accounts: accounts.pick,
    seatShards: seats.list,
    serverShards: servers.list,
    pointers: pointers.pick,
    claims: database.collection('claims'),
    serverCancellations: database.collection('server_cancellations'),
    leases: database.collection('leases'),
  };
}

/** The scheduler's due scan uses these on MongoDB; FerretDB scans regardless, which the batch bound keeps cheap. */
export async function ensureBillingIndexes(collections: BillingCollections): Promise<void> {
  await Promise.all([
    ...collections.seatShards.map((collection) => collection.createIndex({ next_action_at: 1 }, { name: 'next_action_at' })),
    ...collections.serverShards.map((collection) => collection.createIndex({ next_action_at: 1 }, { name: 'next_action_at' })),
  ]);
}

interface CachedView {
  revision: string;
  seatIds: string[];
  serverIds: string[];
  /** Released items never change again, so a reload skips them. */
  releasedIds: Set<string>;
  endedByCancellation: boolean;
  view: CustomerView;
}

const pointerProbeLimit = 100_000;

export class BillingStore {
  private readonly cache = new Map<string, CachedView>();

  constructor(
    readonly collections: BillingCollections,
    private readonly options: { cacheCustomers: number },
  ) {}

  newRevision(): string {
    return crypto.randomBytes(9).toString('base64url');
  }

  /**
   * Marks the customer's state as changed for every replica. Called after the change itself is written, so a
   * reader that sees the new token also sees the change.
   */
  async bumpRevision(customerId: string, hints: { seatCount?: number; serverCount?: number } = {}): Promise<void> {
    this.cache.delete(customerId);
    const update = {
      $set: { revision: this.newRevision(), updated_at: new Date() },
      $max: { seat_count_hint: hints.seatCount ?? 0, server_count_hint: hints.serverCount ?? 0 },
    };
    try {
      await this.collections.customers(customerId).updateOne({ _id: customerId }, update, { upsert: true });
    } catch (error) {
      // Two first-ever upserts raced; the document exists now, so a plain update does it.
      if (!isDuplicateKeyError(error)) throw error;
      await this.collections.customers(customerId).updateOne({ _id: customerId }, update);
    }
  }

  forget(customerId: string): void {
    this.cache.delete(customerId);
  }

  /** Gives `itemId` the customer's next free ordinal of `kind` by exclusive insert of its pointer. */
  async allocatePointer(customerId: string, kind: PointerKind, itemId: string, now: Date): Promise<number> {
    const customer = await this.collections.customers(customerId).findOne({ _id: customerId });
    const cached = this.cache.get(customerId);
    let ordinal = Math.max(kind === 'seat' ? (customer?.seat_count_hint ?? 0) : (customer?.server_count_hint ?? 0), kind === 'seat' ? (cached?.seatIds.length ?? 0) : (cached?.serverIds.length ?? 0));
    for (let attempt = 0; attempt < pointerProbeLimit; attempt += 1, ordinal += 1) {
      const inserted = await insertIfAbsent(this.collections.pointers(customerId), { _id: pointerKey(customerId, kind, ordinal), customer_id: customerId, kind, ordinal, item_id: itemId, created_at: now });
      if (inserted) return ordinal;
    }
    throw new Error(`no free ${kind} ordinal for customer after ${pointerProbeLimit} attempts`);
  }

  private async listPointers(customerId: string, kind: PointerKind, known: string[], hint: number): Promise<string[]> {
    const ids = [...known];
    const collection = this.collections.pointers(customerId);
    if (hint > ids.length) {
      const wanted = Array.from({ length: hint - ids.length }, (_, index) => pointerKey(customerId, kind, ids.length + index));
      const found = new Map((await collection.find({ _id: { $in: wanted } }).toArray()).map((pointer) => [pointer._id, pointer.item_id]));
      for (const key of wanted) {
        const itemId = found.get(key);
        if (itemId === undefined) return ids;
        ids.push(itemId);
      }
    }
    // The hint can lag behind (its updates may be lost); walk on until the first gap.
    for (;;) {
      const pointer = await collection.findOne({ _id: pointerKey(customerId, kind, ids.length) });
      if (!pointer) return ids;
      ids.push(pointer.item_id);
    }
  }

  /**
   * The customer's seats and servers, joined. Served from memory while the revision token is the one the
   * memory was built under; otherwise rebuilt from `_id` reads (pointers, then each non-released item).
   */
  async loadView(customerId: string): Promise<CustomerView> {
    const customer = await this.collections.customers(customerId).findOne({ _id: customerId });
    if (!customer) return emptyView(customerId);
    const cached = this.cache.get(customerId);
    if (cached && cached.revision === customer.revision) {
      // Refresh its place in the LRU order.
      this.cache.delete(customerId);
      this.cache.set(customerId, cached);
      return cached.view;
    }
    const [seatIds, serverIds, settings] = await Promise.all([
      this.listPointers(customerId, 'seat', cached?.seatIds ?? [], customer.seat_count_hint ?? 0),
      this.listPointers(customerId, 'server', cached?.serverIds ?? [], customer.server_count_hint ?? 0),
      this.collections.settings(customerId).findOne({ _id: customerId }),
    ]);
    const releasedIds = new Set(cached?.releasedIds ?? []);
    let endedByCancellation = cached?.endedByCancellation ?? false;
    const [seatStates, serverStates] = await Promise.all([
      this.readSeats(customerId, seatIds.filter((id) => !releasedIds.has(id))),
      Promise.all(serverIds.filter((id) => !releasedIds.has(id)).map((id) => this.readServer(customerId, id))),
    ]);
    const seats: SeatState[] = [];
    for (const state of seatStates) {
      if (!state) continue;
      if (state.seat.status === 'released') {
        releasedIds.add(state.seat._id);
        if (state.seat.release_reason === 'canceled') endedByCancellation = true;
      } else if (state.seat.status !== 'pending') seats.push(state);
    }
    const servers: ServerState[] = [];
    for (const state of serverStates) {
      if (!state) continue;
      if (state.server.status === 'released') {
        releasedIds.add(state.server._id);
        if (state.server.release_reason === 'canceled') endedByCancellation = true;
      } else if (state.server.status !== 'pending') servers.push(state);
    }
    const view: CustomerView = {
      customer_id: customerId,
      revision: customer.revision,
      cancel_at_period_end: settings?.cancel_at_period_end ?? false,
      seats,
      servers,
      ended_by_cancellation: endedByCancellation,
    };
    if (this.options.cacheCustomers > 0) {
      this.cache.delete(customerId);
      this.cache.set(customerId, { revision: customer.revision, seatIds, serverIds, releasedIds, endedByCancellation, view });
      while (this.cache.size > this.options.cacheCustomers) this.cache.delete(this.cache.keys().next().value!);
    }
    return view;
  }

  /**
   * Many seats of one customer at once, in the order given: one `$in` query per document kind, on the
   * customer's shard. On MongoDB that is an index lookup; on FerretDB it scans the shard, which is small, and
   * beats hundreds of round trips. Occupancy left one generation behind by a crashed writer is repaired by the
   * next writer that claims it.
   */
  async readSeats(customerId: string, seatIds: string[]): Promise<Array<SeatState | null>> {
    if (seatIds.length === 0) return [];
    const [seats, occupancies] = await Promise.all([
      this.collections.seats(customerId).find({ _id: { $in: seatIds } }).toArray(),
      this.collections.occupancy(customerId).find({ _id: { $in: seatIds } }).toArray(),
    ]);
    const seatById = new Map(seats.map((seat) => [seat._id, seat]));
    const occupancyById = new Map(occupancies.map((occupancy) => [occupancy._id, occupancy]));
    return seatIds.map((id) => {
      const seat = seatById.get(id);
      const occupancy = occupancyById.get(id);
      return seat && occupancy ? { seat, occupancy } : null;
    });
  }

  /**
   * Joins the seats a scheduler batch found with their occupancy in a few bulk queries instead of three
   * lookups per seat. A seat whose occupancy has a claim pending repair is left out; the renewal then reads it
   * the careful way.
   */
  async joinOccupancy(seats: SeatDocument[]): Promise<Map<string, SeatState>> {
    const joined = new Map<string, SeatState>();
    if (seats.length === 0) return joined;
    const groups = new Map<Collection<OccupancyDocument>, string[]>();
    for (const seat of seats) {
      const collection = this.collections.occupancy(seat.customer_id);
      const group = groups.get(collection) ?? [];
      group.push(seat._id);
      groups.set(collection, group);
    }
    const occupancies = new Map((await Promise.all([...groups].map(([collection, ids]) => collection.find({ _id: { $in: ids } }).toArray()))).flat().map((document) => [document._id, document]));
    const nextClaims = [...occupancies.values()].map((occupancy) => claimKey(occupancy._id, occupancy.generation + 1));
    const pending = new Set((await this.collections.claims.find({ _id: { $in: nextClaims } }, { projection: { seat_id: 1 } }).toArray()).map((claim) => claim.seat_id));
    for (const seat of seats) {
      const occupancy = occupancies.get(seat._id);
      if (occupancy && !pending.has(seat._id)) joined.set(seat._id, { seat, occupancy });
    }
    return joined;
  }

  async readSeat(customerId: string, seatId: string): Promise<SeatState | null> {
    const [seat, occupancy] = await Promise.all([this.collections.seats(customerId).findOne({ _id: seatId }), this.collections.occupancy(customerId).findOne({ _id: seatId })]);
    if (!seat || !occupancy) return null;
    return { seat, occupancy: await this.repairOccupancy(occupancy) };
  }

  async readServer(customerId: string, serverId: string): Promise<ServerState | null> {
    const [server, cancellation] = await Promise.all([this.collections.servers(customerId).findOne({ _id: serverId }), this.collections.serverCancellations.findOne({ _id: serverId })]);
    if (!server) return null;
    return { server, cancel_at_period_end: cancellation !== null };
  }

  /**
   * Occupancy changes are decided by claims: whoever inserts claim `<seat>:<generation+1>` owns the next
   * state. A writer that died between its claim and the occupancy update leaves the document one generation
   * behind; the claim holds the intended state, so any reader can finish the job.
   */
  async repairOccupancy(occupancy: OccupancyDocument): Promise<OccupancyDocument> {
    let current = occupancy;
    for (;;) {
      const next = await this.collections.claims.findOne({ _id: claimKey(current._id, current.generation + 1) });
      if (!next) return current;
      current = { ...current, generation: next.generation, account_id: next.account_id, label: next.label, released: next.released, updated_at: next.created_at };
      await this.collections.occupancy(current.customer_id).updateOne(
        { _id: current._id, generation: { $lt: current.generation } },
        { $set: { generation: current.generation, account_id: current.account_id, label: current.label, released: current.released, updated_at: current.updated_at } },
      );
    }
  }

  /**
   * Moves a seat's occupancy from `from` to the next generation. Returns the new occupancy, or null when
   * another writer claimed that generation first (the caller re-reads and decides again).
   */
  async claimOccupancy(from: OccupancyDocument, next: { account_id: string | null; label: string | null; released: boolean }, now: Date): Promise<OccupancyDocument | null> {
    const generation = from.generation + 1;
    const won = await insertIfAbsent(this.collections.claims, { _id: claimKey(from._id, generation), seat_id: from._id, generation, ...next, created_at: now });
    if (!won) {
      // Whoever holds that generation may have died before writing the occupancy; make sure it is written.
      await this.repairOccupancy(from);
      return null;
    }
    const occupancy: OccupancyDocument = { ...from, generation, ...next, updated_at: now };
    await this.collections.occupancy(from.customer_id).updateOne({ _id: from._id }, { $set: { generation, account_id: next.account_id, label: next.label, released: next.released, updated_at: now } });
    return occupancy;
  }

  async readSettings(customerId: string): Promise<SettingsDocument | null> {
    return this.collections.settings(customerId).findOne({ _id: customerId });
  }
}

export function emptyView(customerId: string): CustomerView {
  return { customer_id: customerId, revision: null, cancel_at_period_end: false, seats: [], servers: [], ended_by_cancellation: false };
}
