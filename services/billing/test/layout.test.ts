import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type { Document } from 'mongodb';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { BillingStore, billingCollections, ensureBillingIndexes } from '../src/store/billing-store';
import { seedSeats, type SeedSeat } from './seed';

let mongo: MongoClient;
const name = `${testDatabasePrefix('layout')}billing`;
const finds: Document[] = [];

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
  mongo.on('commandStarted', (event) => {
    if (event.commandName === 'find' && event.databaseName === name) finds.push(event.command);
  });
});

afterAll(async () => {
  await mongo
    ?.db(name)
    .dropDatabase()
    .catch(() => undefined);
  await mongo?.close();
});

const seeds = (customerId: string, count: number, now: Date): SeedSeat[] =>
  Array.from({ length: count }, (_, index) => ({
    customerId,
    accountId: `acc_${customerId}_${index}`,
    anchor: now,
    paidUntil: new Date(now.getTime() + 30 * 86_400_000),
    nextActionAt: new Date(now.getTime() + 30 * 86_400_000),
  }));

describe('one store layout', () => {
  it("keeps one collection per kind and reads a customer's view by customer_id and _id, never by $in", async () => {
    const collections = billingCollections(mongo.db(name));
    await ensureBillingIndexes(collections);
    const now = new Date('2027-03-01T00:00:00Z');
    const bigSeats = await seedSeats(collections, seeds('cus_big', 12, now), now);
    await seedSeats(collections, seeds('cus_small', 3, now), now);
    const names = (await collections.database.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(['customers', 'seats', 'occupancy', 'pointers', 'accounts', 'claims']));
    expect(names.filter((collection) => /_\d+$/.test(collection))).toEqual([]);

    const store = new BillingStore(collections, { cacheCustomers: 10 });
    finds.length = 0;
    const big = await store.loadView('cus_big');
    const small = await store.loadView('cus_small');
    expect(big.seats.map((state) => state.seat._id)).toEqual(bigSeats);
    expect(big.seats.map((state) => state.occupancy.account_id)).toEqual(bigSeats.map((_, index) => `acc_cus_big_${index}`));
    expect(small.seats.map((state) => state.occupancy.account_id)).toEqual(['acc_cus_small_0', 'acc_cus_small_1', 'acc_cus_small_2']);
    expect(finds.filter((command) => JSON.stringify(command.filter).includes('$in'))).toEqual([]);
    // A cold view reads each customer's pointers in one command, not one per pointer.
    expect(finds.filter((command) => command.find === 'pointers')).toHaveLength(2);

    // A seat bought through another replica: this one's reload reads the new pointer by `_id`.
    const other = new BillingStore(collections, { cacheCustomers: 10 });
    const original = (await collections.seats.findOne({ _id: bigSeats[0]! }))!;
    const occupancy = (await collections.occupancy.findOne({ _id: bigSeats[0]! }))!;
    const ordinal = await other.allocatePointer('cus_big', 'seat', 'seat_added', now);
    await collections.seats.insertOne({ ...original, _id: 'seat_added', ordinal });
    await collections.occupancy.insertOne({ ...occupancy, _id: 'seat_added', account_id: 'acc_added' });
    await other.bumpRevision('cus_big', { seatCount: 13 });
    finds.length = 0;
    const reloaded = await store.loadView('cus_big');
    expect(reloaded.seats.map((state) => state.occupancy.account_id)).toEqual([
      ...bigSeats.map((_, index) => `acc_cus_big_${index}`),
      'acc_added',
    ]);
    const pointerReads = finds.filter((command) => command.find === 'pointers').map((command) => command.filter._id);
    expect(pointerReads.sort()).toEqual(['cus_big:seat:12', 'cus_big:seat:13', 'cus_big:server:0']);
    expect(finds.filter((command) => JSON.stringify(command.filter).includes('$in'))).toEqual([]);
  });
});
