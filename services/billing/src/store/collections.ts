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
 * Billing's collections: one per kind, on every store (MongoDB in production, FerretDB in development and tests).
 * Hot reads are `_id` lookups and equalities on an indexed `customer_id`: a customer's seats are listed through
 * pointer documents `<customer>:seat:<n>` and read with their occupancy by `customer_id`, and a reader keeps each
 * customer's joined view in memory for as long as the customer's revision token is unchanged. Both are index
 * lookups on MongoDB and on the repo's FerretDB build, which serves `_id` and indexed equalities from the index
 * but scans for `$in` and range filters (docs/architecture.md, "Storage rules"); no hot path uses those.
 */
export interface BillingCollections {
  /** The database holding them all, for commands that are not a collection method. */
  database: Db;
  customers: Collection<CustomerDocument>;
  settings: Collection<SettingsDocument>;
  seats: Collection<SeatDocument>;
  occupancy: Collection<OccupancyDocument>;
  servers: Collection<ServerDocument>;
  accounts: Collection<AccountDocument>;
  pointers: Collection<PointerDocument>;
  claims: Collection<ClaimDocument>;
  serverCancellations: Collection<ServerCancellationDocument>;
  leases: Collection<LeaseDocument>;
}

export function billingCollections(database: Db): BillingCollections {
  return {
    database,
    customers: database.collection('customers'),
    settings: database.collection('settings'),
    seats: database.collection('seats'),
    occupancy: database.collection('occupancy'),
    servers: database.collection('servers'),
    accounts: database.collection('accounts'),
    pointers: database.collection('pointers'),
    claims: database.collection('claims'),
    serverCancellations: database.collection('server_cancellations'),
    leases: database.collection('leases'),
  };
}

/**
 * `next_action_at` serves the scheduler's due scan on MongoDB (FerretDB scans a range regardless, once per batch);
 * `customer_id` serves a customer's seats, occupancy and (on a cold load) pointers as one indexed equality each, and
 * the customer's servers for the low-balance check after a scheduler pass.
 */
export async function ensureBillingIndexes(collections: BillingCollections): Promise<void> {
  await Promise.all([
    collections.seats.createIndex({ next_action_at: 1 }, { name: 'next_action_at' }),
    collections.servers.createIndex({ next_action_at: 1 }, { name: 'next_action_at' }),
    collections.seats.createIndex({ customer_id: 1 }, { name: 'customer_id' }),
    collections.occupancy.createIndex({ customer_id: 1 }, { name: 'customer_id' }),
    collections.pointers.createIndex({ customer_id: 1 }, { name: 'customer_id' }),
    collections.servers.createIndex({ customer_id: 1 }, { name: 'customer_id' }),
  ]);
}
