import type { Collection, Db } from 'mongodb';
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
