import crypto from 'node:crypto';
import { MongoBulkWriteError } from 'mongodb';
import { refusedStatements } from '@mtx/shared/bulk-write';
import { ClaimedSequence } from '@mtx/shared/claimed-sequence';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import {
  claimKey,
  type CustomerView,
  type OccupancyDocument,
  type PointerKind,
  type SeatDocument,
  type SeatState,
  type ServerState,
  type SettingsDocument,
} from '../domain/model';
import { WriteGate } from '@mtx/shared/write-gate';

import type { BillingCollections } from './collections';
import { CustomerViewCache } from './view-cache';
import { byCustomer, idLookupsInFlight, lookUpEach } from './many-reads';
import { emptyRun, listItemIds } from './pointer-lists';
import { claimOccupancy, repairOccupancy } from './occupancy';
import { readCheckView, type PassReads } from './check-view';

export * from './collections';
export type { PassReads } from './check-view';

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
  private readonly views: CustomerViewCache;
  private readonly schedulerWrites: WriteGate;
  /** Each customer's pointer ordinals per kind (`<customer>:<kind>:<ordinal>`, ordinals from 0). */
  private readonly pointerOrdinals: ClaimedSequence;

  constructor(
    readonly collections: BillingCollections,
    private readonly options: BillingStoreOptions,
  ) {
    this.schedulerWrites = new WriteGate(options.schedulerWritesInFlight ?? 2);
    this.views = new CustomerViewCache(options.cacheCustomers, options.viewFreshMs ?? 0);
    this.pointerOrdinals = new ClaimedSequence(
      async (id) => (await collections.pointers.findOne({ _id: id }, { projection: { _id: 1 } })) !== null,
      { headsMax: options.cacheCustomers * 2, idOf: (key, number) => `${key}:${number - 1}` },
    );
  }

  newRevision(): string {
    return crypto.randomBytes(9).toString('base64url');
  }

  /**
   * Marks the customer's state as changed for every replica. Called after the change itself is written, so a
   * reader that sees the new token also sees the change.
   */
  async bumpRevision(customerId: string, hints: { seatCount?: number; serverCount?: number } = {}): Promise<void> {
    this.views.forget(customerId);
    const revision = this.newRevision();
    const update = {
      $set: { revision, updated_at: new Date() },
      $max: { seat_count_hint: hints.seatCount ?? 0, server_count_hint: hints.serverCount ?? 0 },
    };
    try {
      await this.collections.customers.updateOne({ _id: customerId }, update, { upsert: true });
    } catch (error) {
      // Two first-ever upserts raced; the document exists now, so a plain update does it.
      if (!isDuplicateKeyError(error)) throw error;
      await this.collections.customers.updateOne({ _id: customerId }, update);
    }
    // A read that raced the write may have cached the old view meanwhile.
    this.views.forget(customerId);
    this.views.noteChange(customerId);
    this.options.onRevisionChanged?.(customerId, revision);
  }

  forget(customerId: string): void {
    this.views.forget(customerId);
  }

  /** The customers' views as cached; suspended while other replicas' announcements may be missed. */
  get viewCache(): CustomerViewCache['cache'] {
    return this.views.cache;
  }

  /** Another replica's revision change (its announcement). */
  observeRevision(customerId: string, revision: string | null): void {
    this.views.observeRevision(customerId, revision);
  }

  /**
   * Gives `itemId` the customer's next free ordinal of `kind` by exclusive insert of its pointer. Ordinals are
   * gapless from 0, so the head is found by galloping (a few `_id` reads) and then held in memory; an ordinal
   * another replica took first is a duplicate key, after which the head is found again.
   */
  async allocatePointer(customerId: string, kind: PointerKind, itemId: string, now: Date): Promise<number> {
    const id = await this.pointerOrdinals.claim(`${customerId}:${kind}`, (pointerId, number) =>
      insertIfAbsent(this.collections.pointers, {
        _id: pointerId,
        customer_id: customerId,
        kind,
        ordinal: number - 1,
        item_id: itemId,
        created_at: now,
      }),
    );
    return Number(id.slice(id.lastIndexOf(':') + 1));
  }

  /**
   * A pending item written before pointers came first (its ordinal still -1) gets its pointer before it is paid
   * for, so that it is listed once bought. Returns the item's ordinal.
   */
  async ensurePointer(customerId: string, kind: PointerKind, item: { _id: string; ordinal: number }, now: Date): Promise<number> {
    if (item.ordinal >= 0) return item.ordinal;
    const ordinal = await this.allocatePointer(customerId, kind, item._id, now);
    const collection = kind === 'seat' ? this.collections.seats : this.collections.servers;
    await collection.updateOne({ _id: item._id }, { $set: { ordinal } });
    return ordinal;
  }

  /**
   * The customer's seats and servers, joined. Served from memory while the revision token is the one the
   * memory was built under; otherwise rebuilt from the customer's pointers, then each non-released item.
   */
  async loadView(customerId: string, options: { fresh?: boolean } = {}): Promise<CustomerView> {
    const freshMs = this.options.viewFreshMs ?? 0;
    const trusted = options.fresh ? this.views.trusted(customerId) : undefined;
    if (trusted) return trusted.view;
    const verified = this.views.begin();
    const customer = await this.collections.customers.findOne({ _id: customerId });
    if (!customer) {
      const view = emptyView(customerId);
      // Remembered only for fresh reads: nothing to list, and the first purchase announces a revision.
      if (freshMs > 0)
        this.views.remember(
          customerId,
          {
            revision: null,
            seats: emptyRun(),
            servers: emptyRun(),
            releasedIds: new Set(),
            endedByCancellation: false,
            view,
          },
          verified,
        );
      return view;
    }
    const cached = this.views.get(customerId);
    if (cached && cached.revision === customer.revision) {
      this.views.remember(customerId, cached, verified);
      return cached.view;
    }
    const [{ seats: seatRun, servers: serverRun }, settings] = await Promise.all([
      listItemIds(this.collections.pointers, customer, cached),
      this.collections.settings.findOne({ _id: customerId }),
    ]);
    const releasedIds = new Set(cached?.releasedIds ?? []);
    let endedByCancellation = cached?.endedByCancellation ?? false;
    // Each item once: a keyed purchase retried on two replicas at once can leave two pointers to one item.
    const listed = (ids: string[]) => [...new Set(ids)].filter((id) => !releasedIds.has(id));
    const [seatStates, serverStates] = await Promise.all([
      this.readSeats(customerId, listed(seatRun.ids)),
      Promise.all(listed(serverRun.ids).map((id) => this.readServer(id))),
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
    this.views.remember(
      customerId,
      { revision: customer.revision, seats: seatRun, servers: serverRun, releasedIds, endedByCancellation, view },
      verified,
    );
    return view;
  }

  /**
   * Many seats of one customer at once, in the order given, each joined with its occupancy. Occupancy left one
   * generation behind by a crashed writer is repaired by the next writer that claims it.
   */
  async readSeats(customerId: string, seatIds: string[]): Promise<Array<SeatState | null>> {
    if (seatIds.length === 0) return [];
    const [seats, occupancies] = await Promise.all([this.customerSeats(customerId, seatIds), this.customerOccupancy(customerId, seatIds)]);
    return seatIds.map((id) => {
      const seat = seats.get(id);
      const occupancy = occupancies.get(id);
      return seat && occupancy ? { seat, occupancy } : null;
    });
  }

  /**
   * The seats of one customer a scheduler batch found, joined with their occupancy. The join is not yet safe to
   * act on: a claim may be pending repair, which `withoutPendingClaims` checks.
   */
  async joinOccupancy(
    customerId: string,
    seats: SeatDocument[],
  ): Promise<{ joined: Map<string, SeatState>; occupancies: Map<string, OccupancyDocument> }> {
    const joined = new Map<string, SeatState>();
    const occupancies = new Map<string, OccupancyDocument>();
    if (seats.length === 0) return { joined, occupancies };
    // Every occupancy of the customer comes with the one read; the pass keeps them for its low-balance check.
    for (const occupancy of await this.collections.occupancy.find({ customer_id: customerId }).toArray())
      occupancies.set(occupancy._id, occupancy);
    for (const seat of seats) {
      const occupancy = occupancies.get(seat._id);
      if (occupancy) joined.set(seat._id, { seat, occupancy });
    }
    return { joined, occupancies };
  }

  /** The customer's view for the low-balance check after a scheduler pass (see check-view.ts); never cached. */
  readCheckView(customerId: string, reads: PassReads): Promise<CustomerView> {
    return readCheckView(this.collections, customerId, reads);
  }

  /** The listed seats of one customer: one indexed `customer_id` equality (see `byCustomer`). */
  private async customerSeats(customerId: string, seatIds: string[]): Promise<Map<string, SeatDocument>> {
    return byCustomer(this.collections.seats, customerId, seatIds);
  }

  private async customerOccupancy(customerId: string, seatIds: string[]): Promise<Map<string, OccupancyDocument>> {
    return byCustomer(this.collections.occupancy, customerId, seatIds);
  }

  /**
   * The states whose occupancy has no next-generation claim waiting (a writer that died between its claim and
   * the occupancy update leaves one); the others are left out, so the renewal reads them the careful way, which
   * repairs them. One `_id` probe per seat: the claims collection keeps every claim ever made, and an `$in` over it
   * scans it on FerretDB.
   */
  async withoutPendingClaims(states: SeatState[]): Promise<SeatState[]> {
    const pending = await lookUpEach(states, idLookupsInFlight, ({ occupancy }) =>
      this.claimExists(claimKey(occupancy._id, occupancy.generation + 1)),
    );
    return states.filter((_, index) => !pending[index]);
  }

  /**
   * Whether the claim exists, by a `count` of its `_id` rather than a find: FerretDB answers every `find` after
   * copying and sorting the metadata of all the database's collections, which made a find by `_id` cost more than
   * this probe. On MongoDB, a count with an `_id` predicate is an exact index lookup.
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
  async writeSeatRenewals(writes: ReadonlyArray<{ seatId: string; set: Partial<SeatDocument> }>): Promise<boolean[]> {
    const applied = new Array<boolean>(writes.length).fill(false);
    for (let start = 0; start < writes.length; start += seatWritesPerCommand) {
      const chunk = writes.slice(start, start + seatWritesPerCommand);
      try {
        await this.schedulerWrites.run(() =>
          this.collections.seats.bulkWrite(
            chunk.map((write) => ({ updateOne: { filter: { _id: write.seatId }, update: { $set: write.set } } })),
            { ordered: false },
          ),
        );
        for (let index = 0; index < chunk.length; index += 1) applied[start + index] = true;
      } catch (error) {
        // MongoDB names the statements that failed (the others applied); a failed command (FerretDB reports
        // any failure that way) says nothing about which applied, so none is counted.
        const refused = refusedStatements(error, chunk.length);
        const failed =
          refused && error instanceof MongoBulkWriteError && error.result.matchedCount + refused.length === chunk.length
            ? new Set(refused.map((statement) => statement.index))
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

  async readSeat(seatId: string): Promise<SeatState | null> {
    const [seat, occupancy] = await Promise.all([
      this.collections.seats.findOne({ _id: seatId }),
      this.collections.occupancy.findOne({ _id: seatId }),
    ]);
    if (!seat || !occupancy) return null;
    return { seat, occupancy: await this.repairOccupancy(occupancy) };
  }

  async readServer(serverId: string): Promise<ServerState | null> {
    const [server, cancellation] = await Promise.all([
      this.collections.servers.findOne({ _id: serverId }),
      this.collections.serverCancellations.findOne({ _id: serverId }),
    ]);
    if (!server) return null;
    return { server, cancel_at_period_end: cancellation !== null };
  }

  /** Finishes an occupancy change a writer left one generation behind (see occupancy.ts). */
  repairOccupancy(occupancy: OccupancyDocument): Promise<OccupancyDocument> {
    return repairOccupancy(this.collections, occupancy);
  }

  /** Moves a seat's occupancy to the next generation; null when another writer claimed it first. */
  claimOccupancy(
    from: OccupancyDocument,
    next: { account_id: string | null; label: string | null; released: boolean },
    now: Date,
  ): Promise<OccupancyDocument | null> {
    return claimOccupancy(this.collections, from, next, now);
  }

  async readSettings(customerId: string): Promise<SettingsDocument | null> {
    return this.collections.settings.findOne({ _id: customerId });
  }
}

export function emptyView(customerId: string): CustomerView {
  return { customer_id: customerId, revision: null, cancel_at_period_end: false, seats: [], servers: [], ended_by_cancellation: false };
}
