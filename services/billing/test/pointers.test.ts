import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { BillingStore, billingCollections } from '../src/store/billing-store';

let mongo: MongoClient;
const name = `${testDatabasePrefix('pointers')}billing`;
const pointerInserts: string[] = [];

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
  mongo.on('commandStarted', (event) => {
    if (event.commandName === 'insert' && event.command.insert === 'pointers')
      pointerInserts.push(String(event.command.documents?.[0]?._id));
  });
});

afterAll(async () => {
  await mongo
    ?.db(name)
    .dropDatabase()
    .catch(() => undefined);
  await mongo?.close();
});

describe('pointer ordinals', () => {
  it('are gapless from 0 across replicas, and a cold replica claims the next with one insert, not one per taken ordinal', async () => {
    const collections = billingCollections(mongo.db(name));
    const first = new BillingStore(collections, { cacheCustomers: 10 });
    const now = new Date('2027-01-01T00:00:00Z');
    const ordinals: number[] = [];
    for (let n = 0; n < 40; n += 1) ordinals.push(await first.allocatePointer('cus_p', 'seat', `seat_${n}`, now));
    expect(ordinals).toEqual(Array.from({ length: 40 }, (_, n) => n));

    // A replica that has seen nothing of this customer (no view, no count hint) finds the head by galloping.
    const cold = new BillingStore(collections, { cacheCustomers: 10 });
    pointerInserts.length = 0;
    expect(await cold.allocatePointer('cus_p', 'seat', 'seat_40', now)).toBe(40);
    expect(pointerInserts).toEqual(['cus_p:seat:40']);

    // Both replicas claiming at once: distinct ordinals, still gapless, another kind counted on its own.
    const racing = await Promise.all([
      ...Array.from({ length: 5 }, (_, n) => first.allocatePointer('cus_p', 'seat', `seat_a${n}`, now)),
      ...Array.from({ length: 5 }, (_, n) => cold.allocatePointer('cus_p', 'seat', `seat_b${n}`, now)),
      cold.allocatePointer('cus_p', 'server', 'srv_0', now),
    ]);
    expect(racing.slice(0, 10).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, n) => 41 + n));
    expect(racing[10]).toBe(0);
    expect(await collections.pointers.countDocuments({ kind: 'seat' })).toBe(51);
  });
});
