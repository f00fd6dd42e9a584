import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import {
  BillingStore,
  billingCollections,
  ferretDbShards,
  openBillingCollections,
  type BillingCollections,
} from '../src/store/billing-store';
import { mergeShardedLayout } from '../src/store/shard-migration';
import { seedSeats } from './seed';
import type { SeatDocument } from '../src/domain/model';

const logger = createLogger('billing-test', { level: 'silent' });
let mongo: MongoClient;
const databases: string[] = [];

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'));
});

afterAll(async () => {
  for (const name of databases)
    await mongo
      .db(name)
      .dropDatabase()
      .catch(() => undefined);
  await mongo?.close();
});

function freshDatabase() {
  const name = `${testDatabasePrefix('shards')}billing`;
  databases.push(name);
  return mongo.db(name);
}

/** The collections of the former layout's shard `shard` (`seats_05`, ...), where one customer's documents lived. */
function formerShard(collections: BillingCollections, shard: string): BillingCollections {
  const database = collections.database;
  return {
    ...collections,
    customers: () => database.collection(`customers_${shard}`),
    settings: () => database.collection(`settings_${shard}`),
    seats: () => database.collection(`seats_${shard}`),
    occupancy: () => database.collection(`occupancy_${shard}`),
    servers: () => database.collection(`servers_${shard}`),
    accounts: () => database.collection(`accounts_${shard}`),
    pointers: () => database.collection(`pointers_${shard}`),
  };
}

describe('the store layout', () => {
  it('shards on FerretDB, which scans for every filter but _id equality, and would keep single collections on MongoDB', async () => {
    const database = freshDatabase();
    const info = await database.admin().command({ buildInfo: 1 });
    const onFerretDb = typeof info.ferretdbVersion === 'string';
    const collections = await openBillingCollections(database);
    expect(collections.seatShards).toHaveLength(onFerretDb ? ferretDbShards : 1);
    expect(collections.seats('cus_a').collectionName).toMatch(onFerretDb ? /^seats_\d{2}$/ : /^seats$/);
  });
});

describe('folding a sharded layout into single collections (MongoDB, after versions that sharded everywhere)', () => {
  it("folds every shard into the single collections, after which each customer's view reads as before", async () => {
    const database = freshDatabase();
    const collections = billingCollections(database, 1);
    const now = new Date('2030-01-10T00:00:00Z');
    const seed = (customerId: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        customerId,
        accountId: `acc_${customerId}_${index}`,
        anchor: now,
        paidUntil: new Date('2030-02-10T00:00:00Z'),
        nextActionAt: new Date('2030-02-10T00:00:00Z'),
      }));
    const firstSeats = await seedSeats(formerShard(collections, '05'), seed('cus_shardone', 3), now);
    const secondSeats = await seedSeats(formerShard(collections, '41'), seed('cus_shardtwo', 2), now);

    const report = await mergeShardedLayout(database, logger);
    // Five kinds hold documents in each of the two shards: per customer its document, and per seat the seat, its
    // occupancy, its account marker and its pointer.
    expect(report).toEqual({ shards: 10, copied: 1 + 3 * 4 + (1 + 2 * 4), alreadyPresent: 0 });
    const left = (await database.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
    expect(left.filter((name) => /_\d{2,3}$/.test(name))).toEqual([]);

    const store = new BillingStore(collections, { cacheCustomers: 0 });
    const first = await store.loadView('cus_shardone');
    const second = await store.loadView('cus_shardtwo');
    expect(first.seats.map((state) => state.seat._id).sort()).toEqual([...firstSeats].sort());
    expect(second.seats.map((state) => state.seat._id).sort()).toEqual([...secondSeats].sort());
    expect(first.seats.every((state) => (state.occupancy.account_id ?? '').startsWith('acc_cus_shardone_'))).toBe(true);
  });

  it('keeps the copy already merged when an interrupted merge runs again, and does nothing once merged', async () => {
    const database = freshDatabase();
    const collections = billingCollections(database, 1);
    const now = new Date('2030-01-10T00:00:00Z');
    const [seatId] = await seedSeats(
      formerShard(collections, '07'),
      [{ customerId: 'cus_again', accountId: 'acc_again', anchor: now, paidUntil: now, nextActionAt: now }],
      now,
    );
    // An earlier merge copied the seat, then died before dropping the shard; the seat was renewed since.
    const shardCopy = await database.collection<SeatDocument>('seats_07').findOne({ _id: seatId! });
    await collections.seats('cus_again').insertOne({ ...shardCopy!, cycle: 2 });

    const report = await mergeShardedLayout(database, logger);
    expect(report.alreadyPresent).toBe(1);
    expect(report.shards).toBe(5);
    expect((await collections.seats('cus_again').findOne({ _id: seatId! }))?.cycle).toBe(2);
    expect(await collections.seats('cus_again').countDocuments({})).toBe(1);

    expect(await mergeShardedLayout(database, logger)).toEqual({ shards: 0, copied: 0, alreadyPresent: 0 });
  });
});
