import type { Collection, Db } from 'mongodb';
import { detectStoreEngine } from '@mtx/shared/mongo';
import type {
  AccountDocument,
  ClaimDocument,
  CustomerDocument,
  LeaseDocument,
  OccupancyDocument,
  PointerDocument,
  SeatDocument,
  ServerCancellationDocument,
  ServerDocument,
  SettingsDocument,
} from '../domain/model';

/**
 * Billing's collections. Hot reads are `_id` lookups and per-customer `$in` queries: a customer's seats are
 * found through pointer documents `<customer>:seat:<n>`, and a reader keeps each customer's joined view in memory
 * for as long as the customer's revision token is unchanged.
 *
 * On MongoDB each kind is one collection, and an `$in` is an index lookup per id. On FerretDB (a development and test
 * stand-in, docs/architecture.md, "Storage rules") only `_id` equality is answered from an index; an `$in` scans its
 * whole collection (187 ms for 20 ids among 10,000 documents). There, and only there, documents updated in place are
 * spread over `ferretDbShards` collections by a hash of their customer id (`seats_07`, ...), so a customer's reads and
 * the scheduler's per-shard scans stay small: reading a 500-seat customer takes 184 ms this way and 612 ms by one `_id`
 * lookup per document over single collections (bench:billing, docs/performance.md). Insert-only collections (claims,
 * leases, cancellations) are never sharded and are only read by `_id`.
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

/** Shards per kind on FerretDB; the layout must not change under existing data, so this is not a setting. */
export const ferretDbShards = 64;

/** The collections that the FerretDB layout splits by customer (as `<name>_00` … `<name>_63`). */
export const shardedKinds = ['customers', 'settings', 'seats', 'occupancy', 'servers', 'accounts', 'pointers'] as const;

/** The layout for the server that answers: shards on FerretDB, single collections on MongoDB. */
export async function openBillingCollections(database: Db): Promise<BillingCollections> {
  return billingCollections(database, (await detectStoreEngine(database)) === 'ferretdb' ? ferretDbShards : 1);
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
