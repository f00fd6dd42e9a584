import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { BillingStore, billingCollections } from '../src/store/billing-store';

let mongo: MongoClient;
const name = `${testDatabasePrefix('pointers')}billing`;
const pointerInserts: string[] = [];
/** `_id` reads of single pointers; a read of all of a customer's pointers is `*`. */
const pointerReads: string[] = [];

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
  mongo.on('commandStarted', (event) => {
    if (event.commandName === 'insert' && event.command.insert === 'pointers')
      pointerInserts.push(String(event.command.documents?.[0]?._id));
    if (event.commandName === 'find' && event.command.find === 'pointers') pointerReads.push(String(event.command.filter?._id ?? '*'));
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

describe('a gap in the pointers', () => {
  const now = new Date('2027-01-01T00:00:00Z');
  const server = (id: string, ordinal: number) => ({
    _id: id,
    customer_id: 'cus_gap',
    ordinal,
    plan: 'vps-small',
    label: id,
    price_eur_cents: 1500,
    status: 'active',
    anchor_at: now,
    cycle: 1,
    paid_until: new Date('2027-02-01T00:00:00Z'),
    grace_ends_at: null,
    next_action_at: new Date('2027-02-01T00:00:00Z'),
    release_reason: null,
    released_at: null,
    created_at: now,
    updated_at: now,
  });
  const pointer = (ordinal: number, itemId: string) => ({
    _id: `cus_gap:server:${ordinal}`,
    customer_id: 'cus_gap',
    kind: 'server' as const,
    ordinal,
    item_id: itemId,
    created_at: now,
  });
  const listed = async (store: BillingStore) => (await store.loadView('cus_gap')).servers.map((state) => state.server._id).sort();

  it('hides nothing bought after it, on a cold read and on a cached one, and a gap filled later is listed too', async () => {
    const collections = billingCollections(mongo.db(name));
    // Ordinal 1 was claimed and its insert lost; 0 and 2 were bought and paid for.
    await collections.servers.insertMany([server('srv_g0', 0), server('srv_g2', 2)] as never[]);
    await collections.pointers.insertMany([pointer(0, 'srv_g0'), pointer(2, 'srv_g2')]);
    // The writer stands for the replica that bought; the reader for another, which keeps its view between reads.
    const writer = new BillingStore(collections, { cacheCustomers: 10 });
    await writer.bumpRevision('cus_gap', { serverCount: 3 });
    const reader = new BillingStore(collections, { cacheCustomers: 10 });
    expect(await listed(reader)).toEqual(['srv_g0', 'srv_g2']);

    // A later claim lands in the gap (a replica galloping from 0 can), and one more after the head: a reload of the
    // cached view, extended by `_id` reads, lists both.
    await collections.servers.insertMany([server('srv_g1', 1), server('srv_g3', 3)] as never[]);
    await collections.pointers.insertMany([pointer(1, 'srv_g1'), pointer(3, 'srv_g3')]);
    await writer.bumpRevision('cus_gap', { serverCount: 4 });
    pointerReads.length = 0;
    expect(await listed(reader)).toEqual(['srv_g0', 'srv_g1', 'srv_g2', 'srv_g3']);
    // The reload read the gap, the new ordinal and the one after it by `_id`, not every pointer of the customer.
    expect(pointerReads.filter((id) => id.includes(':server:')).sort()).toEqual([
      'cus_gap:server:1',
      'cus_gap:server:3',
      'cus_gap:server:4',
    ]);
    expect(await listed(new BillingStore(collections, { cacheCustomers: 10 }))).toEqual(['srv_g0', 'srv_g1', 'srv_g2', 'srv_g3']);
  });
});
