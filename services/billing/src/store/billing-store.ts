import crypto from 'node:crypto';
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
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
import { ChangeLog } from '@mtx/shared/change-log';
import { WriteGate } from '@mtx/shared/write-gate';

/**
 * Billing's collections. Hot reads are `_id` lookups only (FerretDB answers nothing else from an index):
 * a customer's seats are found through pointer documents `<customer>:seat:<n>`, and a reader keeps each
 * customer's joined view in memory for as long as the customer's revision token is unchanged.
 *
 * Documents that are updated in place are spread over `shards` collections by a hash of their customer id
 * (`seats_07`, ...), so one customer's documents share a collection and a renewal pass can write a
 * customer's seats in one command. Our FerretDB build answers `_id` lookups, updates and deletes from the
 * `_id` index, but every other filter (`$in` included) scans its collection, so small collections keep the
 * scheduler's due scans and its per-shard `$in` joins cheap; on MongoDB `shards: 1` gives plain single
 * collections. Insert-only collections (claims, leases, cancellations) are not sharded and are only read by
 * `_id`. Pointers are sharded by customer, so listing a customer's pointers is one `$in` query over a small
 * collection.
 */
/** Every accessor takes the customer id: a customer's documents of one kind all live in one shard. */
export interface BillingCollections {
  /** The database holding them all, for commands that are not a collection method. */
  database: Db;
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
    const list = Array.from({ length: shards }, (_, index) =>
      database.collection<T>(shards === 1 ? name : `${name}_${String(index).padStart(2, '0')}`),
    );
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
    database,
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
  /** null: the customer had no billing document (nothing bought yet). */
  revision: string | null;
  /** When the revision was last confirmed against the store (performance.now()). */
  verifiedAtMs: number;
  seatIds: string[];
  serverIds: string[];
  /** Released items never change again, so a reload skips them. */
  releasedIds: Set<string>;
  endedByCancellation: boolean;
  view: CustomerView;
}

const pointerProbeLimit = 100_000;
/** Claim lookups one `withoutPendingClaims` call keeps in flight. */
const claimLookupsInFlight = 8;
/**
 * Statements per `update` command of grouped seat writes. FerretDB 1.24 keeps each statement's query cursor (and
 * its SQLite connection, of 100 per database) open until the whole command ends, plus one for the write: 32
 * concurrent commands of 10 statements exhausted the pool and hung the store. 8 statements × the gate's few
 * commands leave most of the pool to everyone else, even with two replicas.
 */
const seatWritesPerCommand = 8;

export interface BillingStoreOptions {
  cacheCustomers: number;
  /** Store write commands the scheduler keeps in flight at once (see WriteGate). */
  schedulerWritesInFlight?: number;
  /**
   * How long a read that accepts it (`loadView(id, {fresh: true})`) trusts a cached view without re-reading the
   * revision: every replica announces its revision changes (`onRevisionChanged`), so this only bounds a lost
   * announcement. 0: every read checks the revision.
   */
  viewFreshMs?: number;
  /** Called after every revision change this replica writes; billing's app announces it to every replica. */
  onRevisionChanged?: (customerId: string, revision: string) => void;
}

export class BillingStore {
  private readonly cache = new Map<string, CachedView>();
  private readonly changes: ChangeLog;
  private readonly schedulerWrites: WriteGate;

  constructor(
    readonly collections: BillingCollections,
    private readonly options: BillingStoreOptions,
  ) {
    this.schedulerWrites = new WriteGate(options.schedulerWritesInFlight ?? 2);
    this.changes = new ChangeLog(options.cacheCustomers);
  }

  newRevision(): string {
    return crypto.randomBytes(9).toString('base64url');
  }

  /**
   * Marks the customer's state as changed for every replica. Called after the change itself is written, so a
   * reader that sees the new token also sees the change.
   */
  async bumpRevision(customerId: string, hints: { seatCount?: number; serverCount?: number } = {}): Promise<void> {
    this.cache.delete(customerId);
    const revision = this.newRevision();
    const update = {
      $set: { revision, updated_at: new Date() },
      $max: { seat_count_hint: hints.seatCount ?? 0, server_count_hint: hints.serverCount ?? 0 },
    };
    try {
      await this.collections.customers(customerId).updateOne({ _id: customerId }, update, { upsert: true });
    } catch (error) {
      // Two first-ever upserts raced; the document exists now, so a plain update does it.
      if (!isDuplicateKeyError(error)) throw error;
      await this.collections.customers(customerId).updateOne({ _id: customerId }, update);
    }
    // A read that raced the write may have cached the old view meanwhile.
    this.cache.delete(customerId);
    this.noteChange(customerId);
    this.options.onRevisionChanged?.(customerId, revision);
  }

  forget(customerId: string): void {
    this.cache.delete(customerId);
  }

  /** Another replica's revision change (its announcement): a cached view of another revision is not trusted. */
  observeRevision(customerId: string, revision: string | null): void {
    if (this.cache.get(customerId)?.revision !== revision) this.noteChange(customerId);
  }

  /**
   * A view loaded before this moment may predate the change, even if it is stored after it (a read that
   * raced the write): fresh reads trust only views verified later.
   */
  private noteChange(customerId: string): void {
    this.changes.note(customerId, performance.now());
  }

  private trusted(customerId: string, entry: CachedView): boolean {
    const freshMs = this.options.viewFreshMs ?? 0;
    if (freshMs <= 0 || performance.now() - entry.verifiedAtMs > freshMs) return false;
    return entry.verifiedAtMs > this.changes.lastChange(customerId);
  }

  /** Gives `itemId` the customer's next free ordinal of `kind` by exclusive insert of its pointer. */
  async allocatePointer(customerId: string, kind: PointerKind, itemId: string, now: Date): Promise<number> {
    const customer = await this.collections.customers(customerId).findOne({ _id: customerId });
    const cached = this.cache.get(customerId);
    let ordinal = Math.max(
      kind === 'seat' ? (customer?.seat_count_hint ?? 0) : (customer?.server_count_hint ?? 0),
      kind === 'seat' ? (cached?.seatIds.length ?? 0) : (cached?.serverIds.length ?? 0),
    );
    for (let attempt = 0; attempt < pointerProbeLimit; attempt += 1, ordinal += 1) {
      const inserted = await insertIfAbsent(this.collections.pointers(customerId), {
        _id: pointerKey(customerId, kind, ordinal),
        customer_id: customerId,
        kind,
        ordinal,
        item_id: itemId,
        created_at: now,
      });
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
  async loadView(customerId: string, options: { fresh?: boolean } = {}): Promise<CustomerView> {
    const freshMs = this.options.viewFreshMs ?? 0;
    const remembered = this.cache.get(customerId);
    if (options.fresh && remembered && this.trusted(customerId, remembered)) return remembered.view;
    const verifiedAtMs = performance.now();
    const customer = await this.collections.customers(customerId).findOne({ _id: customerId });
    if (!customer) {
      const view = emptyView(customerId);
      // Remembered only for fresh reads: nothing to list, and the first purchase announces a revision.
      if (freshMs > 0)
        this.remember(customerId, {
          revision: null,
          verifiedAtMs,
          seatIds: [],
          serverIds: [],
          releasedIds: new Set(),
          endedByCancellation: false,
          view,
        });
      return view;
    }
    const cached = this.cache.get(customerId);
    if (cached && cached.revision === customer.revision) {
      cached.verifiedAtMs = verifiedAtMs;
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
      this.readSeats(
        customerId,
        seatIds.filter((id) => !releasedIds.has(id)),
      ),
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
    this.remember(customerId, { revision: customer.revision, verifiedAtMs, seatIds, serverIds, releasedIds, endedByCancellation, view });
    return view;
  }

  private remember(customerId: string, entry: CachedView): void {
    if (this.options.cacheCustomers <= 0) return;
    this.cache.delete(customerId);
    this.cache.set(customerId, entry);
    while (this.cache.size > this.options.cacheCustomers) this.cache.delete(this.cache.keys().next().value!);
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
      this.collections
        .seats(customerId)
        .find({ _id: { $in: seatIds } })
        .toArray(),
      this.collections
        .occupancy(customerId)
        .find({ _id: { $in: seatIds } })
        .toArray(),
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
   * Joins the seats a scheduler batch found with their occupancy: one `$in` query per occupancy shard instead
   * of a lookup per seat. The join is not yet safe to act on: a claim may be pending repair, which
   * `withoutPendingClaims` checks.
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
    const occupancies = new Map(
      (await Promise.all([...groups].map(([collection, ids]) => collection.find({ _id: { $in: ids } }).toArray())))
        .flat()
        .map((document) => [document._id, document]),
    );
    for (const seat of seats) {
      const occupancy = occupancies.get(seat._id);
      if (occupancy) joined.set(seat._id, { seat, occupancy });
    }
    return joined;
  }

  /**
   * The joined states whose occupancy has no next-generation claim waiting (a writer that died between its claim
   * and the occupancy update leaves one); the others are left out, so the renewal reads them the careful way,
   * which repairs them. One `_id` probe per seat: the claims collection keeps every claim ever made, and a
   * `$in` over it is a full scan per listed id on FerretDB (3 s for 10,000 seats).
   */
  async withoutPendingClaims(states: SeatState[]): Promise<SeatState[]> {
    const pending = new Array<boolean>(states.length);
    let next = 0;
    const lookups = async () => {
      while (next < states.length) {
        const index = next++;
        const { occupancy } = states[index]!;
        pending[index] = await this.claimExists(claimKey(occupancy._id, occupancy.generation + 1));
      }
    };
    await Promise.all(Array.from({ length: Math.min(claimLookupsInFlight, states.length) }, lookups));
    return states.filter((_, index) => !pending[index]);
  }

  /**
   * Whether the claim exists, by a `count` of its `_id` rather than a find: FerretDB answers every `find` after
   * copying and sorting the metadata of all the database's collections (450 here, with 64 shards), which made a
   * find by `_id` cost three times this probe (0.31 against 0.10 ms of store CPU, measured). On MongoDB, a count
   * with an `_id` predicate is an exact index lookup.
   */
  private async claimExists(claimId: string): Promise<boolean> {
    const answer = await this.collections.database.command({
      count: this.collections.claims.collectionName,
      query: { _id: claimId },
      limit: 1,
    });
    return Number(answer.n) > 0;
  }

  /**
   * Writes the renewals the scheduler collected for one customer's seats, a few per `update` command and
   * through the scheduler's write gate. Returns, for each write, whether it is known to be applied; a seat
   * whose write failed is still due with its old dates, so the next pass charges it again through the same
   * entry id (a replay) and writes it then.
   */
  async writeSeatRenewals(customerId: string, writes: ReadonlyArray<{ seatId: string; set: Partial<SeatDocument> }>): Promise<boolean[]> {
    const applied = new Array<boolean>(writes.length).fill(false);
    for (let start = 0; start < writes.length; start += seatWritesPerCommand) {
      const chunk = writes.slice(start, start + seatWritesPerCommand);
      try {
        await this.schedulerWrites.run(() =>
          this.collections.seats(customerId).bulkWrite(
            chunk.map((write) => ({ updateOne: { filter: { _id: write.seatId }, update: { $set: write.set } } })),
            { ordered: false },
          ),
        );
        for (let index = 0; index < chunk.length; index += 1) applied[start + index] = true;
      } catch (error) {
        // MongoDB names the statements that failed (the others applied); a failed command (FerretDB reports
        // any failure that way) says nothing about which applied, so none is counted.
        const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
        const failed =
          error instanceof MongoBulkWriteError && writeErrors.length > 0 && error.result.matchedCount + writeErrors.length === chunk.length
            ? new Set(writeErrors.map((writeError) => writeError.index))
            : null;
        if (failed) for (let index = 0; index < chunk.length; index += 1) applied[start + index] = !failed.has(index);
      }
    }
    return applied;
  }

  /** `bumpRevision` for the scheduler's own writes: through its write gate, like the renewals it follows. */
  async bumpRevisionScheduled(customerId: string): Promise<void> {
    await this.schedulerWrites.run(() => this.bumpRevision(customerId));
  }

  async readSeat(customerId: string, seatId: string): Promise<SeatState | null> {
    const [seat, occupancy] = await Promise.all([
      this.collections.seats(customerId).findOne({ _id: seatId }),
      this.collections.occupancy(customerId).findOne({ _id: seatId }),
    ]);
    if (!seat || !occupancy) return null;
    return { seat, occupancy: await this.repairOccupancy(occupancy) };
  }

  async readServer(customerId: string, serverId: string): Promise<ServerState | null> {
    const [server, cancellation] = await Promise.all([
      this.collections.servers(customerId).findOne({ _id: serverId }),
      this.collections.serverCancellations.findOne({ _id: serverId }),
    ]);
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
      current = {
        ...current,
        generation: next.generation,
        account_id: next.account_id,
        label: next.label,
        released: next.released,
        updated_at: next.created_at,
      };
      await this.collections.occupancy(current.customer_id).updateOne(
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
  async claimOccupancy(
    from: OccupancyDocument,
    next: { account_id: string | null; label: string | null; released: boolean },
    now: Date,
  ): Promise<OccupancyDocument | null> {
    const generation = from.generation + 1;
    const won = await insertIfAbsent(this.collections.claims, {
      _id: claimKey(from._id, generation),
      seat_id: from._id,
      generation,
      ...next,
      created_at: now,
    });
    if (!won) {
      // Whoever holds that generation may have died before writing the occupancy; make sure it is written.
      await this.repairOccupancy(from);
      return null;
    }
    const occupancy: OccupancyDocument = { ...from, generation, ...next, updated_at: now };
    await this.collections
      .occupancy(from.customer_id)
      .updateOne(
        { _id: from._id },
        { $set: { generation, account_id: next.account_id, label: next.label, released: next.released, updated_at: now } },
      );
    return occupancy;
  }

  async readSettings(customerId: string): Promise<SettingsDocument | null> {
    return this.collections.settings(customerId).findOne({ _id: customerId });
  }
}

export function emptyView(customerId: string): CustomerView {
  return { customer_id: customerId, revision: null, cancel_at_period_end: false, seats: [], servers: [], ended_by_cancellation: false };
}
