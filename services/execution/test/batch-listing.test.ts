import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { createLogger } from '@mtx/shared/logger';
import { eventually, startTcpProxy, testDatabasePrefix } from '@mtx/shared/testing';
import { BatchListing } from '../src/app/batch-listing';
import type { BatchView } from '../src/domain/results';
import { createExecutionStore, executionDatabaseNames, type ExecutionStore, type OutcomeDocument } from '../src/store/execution-store';
import { GroupWriter } from '../src/store/group-writer';

let mongo: MongoClient;
let store: ExecutionStore;
const logger = createLogger('batch-listing-test', { level: 'silent' });
const prefix = testDatabasePrefix('batchlisting');

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'));
  store = createExecutionStore(mongo.db(databaseName(prefix, 'execution')));
});

afterAll(async () => {
  for (const name of executionDatabaseNames(databaseName(prefix, 'execution'))) await mongo.db(name).dropDatabase();
  await mongo.close();
});

function replica(): BatchListing {
  const view = async (): Promise<BatchView> => {
    throw new Error('every batch in this test is settled when listed');
  };
  return new BatchListing({ store, logger, view, recordedWithinMs: 60_000 });
}

let sequence = 0;
/**
 * Records a batch as the journal does: the batch stored with its outcomes (every other one, as batches were stored
 * before: its outcome document apart), then its listing entries, at one recording time.
 */
async function record(listing: BatchListing, customerId: string, kind: 'orders' | 'close', recordedMs: number): Promise<string> {
  sequence += 1;
  const id = `bat_${customerId.slice(-6)}${kind[0]}${String(sequence).padStart(8, '0')}`;
  const recordedAt = new Date(recordedMs);
  if (sequence % 2 === 0) {
    const batch = { _id: id, customer_id: customerId, kind, created_at: recordedAt, deadline_at: recordedAt };
    await store.batches.insertMany([{ ...batch, results: [], source: 'reply', written_at: recordedAt }], { ordered: true });
  } else {
    await store.outcomes.insertMany([{ _id: id, results: [], source: 'reply', written_at: recordedAt } as OutcomeDocument], {
      ordered: true,
    });
  }
  const figures =
    kind === 'orders'
      ? { settled: true, orders_summary: { requested: 1, filled: 1, placed: 0, failed: 0, unknown: 0 } }
      : {
          settled: true,
          close_summary: {
            accounts: 1,
            matched: 0,
            closed: 0,
            failed: 0,
            unknown: 0,
            accounts_unknown: 0,
            accounts_unavailable: 0,
            accounts_failed: 0,
          },
        };
  await listing.append({ _id: id, customer_id: customerId, kind, created_at: new Date(recordedMs - 5) }, recordedAt, figures);
  return id;
}

async function walk(listing: BatchListing, customerId: string, query: { kind?: 'orders' | 'close'; limit: number }): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listing.list(customerId, { ...query, ...(cursor ? { starting_after: cursor } : {}) });
    ids.push(...page.data.map((item) => item.batch_id));
    if (!page.has_more) return ids;
    cursor = page.data.at(-1)!.batch_id;
  }
}

describe('batch listing over _id sequences', () => {
  it('keeps every batch once when two replicas append for one customer at the same time', async () => {
    const customerId = 'cus_racing000001';
    const [first, second] = [replica(), replica()];
    const baseMs = Date.now();
    const recorded = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        record(index % 2 === 0 ? first : second, customerId, index % 3 === 0 ? 'close' : 'orders', baseMs + index),
      ),
    );
    const listed = await walk(replica(), customerId, { limit: 7 });
    expect([...listed].sort()).toEqual([...recorded].sort());
    expect(new Set(listed).size).toBe(listed.length);
    const closes = await walk(replica(), customerId, { kind: 'close', limit: 3 });
    expect([...closes].sort()).toEqual(recorded.filter((_, index) => index % 3 === 0).sort());
    // Each batch has one entry in `all` and one in its kind's sequence, nothing twice.
    expect(await store.batchListing.countDocuments({ customer_id: customerId })).toBe(80);
  });

  it('lists newest first and pages from a cursor found by recording time, for a fresh replica', async () => {
    const customerId = 'cus_ordered00001';
    const writer = replica();
    const baseMs = Date.now() - 10_000;
    const recorded: string[] = [];
    for (let index = 0; index < 25; index++) recorded.push(await record(writer, customerId, 'orders', baseMs + index * 10));
    const fresh = replica();
    expect(await walk(fresh, customerId, { limit: 4 })).toEqual([...recorded].reverse());
    const afterTenth = await fresh.list(customerId, { limit: 3, starting_after: recorded[10]! });
    expect(afterTenth.data.map((item) => item.batch_id)).toEqual([recorded[9], recorded[8], recorded[7]]);
    expect(afterTenth.has_more).toBe(true);
    const window = await fresh.list(customerId, { limit: 100, created_gte_ms: baseMs + 50 - 5, created_lt_ms: baseMs + 100 - 5 });
    expect(window.data.map((item) => item.batch_id)).toEqual(recorded.slice(5, 10).reverse());
    await expect(fresh.list('cus_someoneelse1', { limit: 3, starting_after: recorded[3]! })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('continues past a number another replica took', async () => {
    const customerId = 'cus_holes0000001';
    const first = replica();
    const baseMs = Date.now();
    const a = await record(first, customerId, 'orders', baseMs);
    // Another replica took the next number in `all` directly (first does not know).
    const b = await record(replica(), customerId, 'orders', baseMs + 1);
    const c = await record(first, customerId, 'orders', baseMs + 2);
    expect(await walk(replica(), customerId, { limit: 2 })).toEqual([c, b, a]);
  });
});

describe('listing entries kept where an earlier version kept them', () => {
  it('moves them to the listing database in their order, once, and re-appends one whose number was taken meanwhile', async () => {
    const customerId = 'cus_migrating001';
    const view = async (): Promise<BatchView> => {
      throw new Error('every batch in this test is settled when listed');
    };
    const earlierVersion = () =>
      new BatchListing({ store: { ...store, batchListing: store.formerBatchListing }, logger, view, recordedWithinMs: 60_000 });
    expect(store.batchListing.dbName).not.toBe(store.formerBatchListing.dbName);
    const baseMs = Date.now() - 10_000;
    const old: string[] = [];
    const writer = earlierVersion();
    for (let index = 0; index < 5; index++)
      old.push(await record(writer, customerId, index % 2 === 1 ? 'close' : 'orders', baseMs + index * 10));
    expect(await store.formerBatchListing.countDocuments({ customer_id: customerId })).toBe(10);

    expect(await replica().moveFormerEntries()).toBe(10);
    expect(await store.formerBatchListing.countDocuments({})).toBe(0);
    expect(await walk(replica(), customerId, { limit: 3 })).toEqual([...old].reverse());
    expect(await walk(replica(), customerId, { kind: 'close', limit: 3 })).toEqual([old[3], old[1]]);

    // A rolling upgrade: this version lists a batch, and a replica of the earlier one lists another where it
    // always did, at numbers the moved entries hold.
    const newer = await record(replica(), customerId, 'orders', baseMs + 100);
    const late = await record(earlierVersion(), customerId, 'orders', baseMs + 110);
    // And an entry moved before, left behind as if the delete after its move had been lost.
    const moved = await store.batchListing.findOne({ _id: `${customerId}:all:2` });
    await store.formerBatchListing.insertOne(moved!);

    expect(await replica().moveFormerEntries(1)).toBe(3);
    expect(await store.formerBatchListing.countDocuments({})).toBe(0);
    const listed = await walk(replica(), customerId, { limit: 4 });
    expect(listed).toEqual([late, newer, ...[...old].reverse()]);
    expect(await walk(replica(), customerId, { kind: 'orders', limit: 4 })).toEqual([late, newer, old[4], old[2], old[0]]);
    expect(await store.batchListing.countDocuments({ customer_id: customerId, batch_id: old[1] })).toBe(2);
  });
});

describe('retraction', () => {
  it('passes over the entries of a batch listed again and withdrawn', async () => {
    const customerId = 'cus_retract000001';
    const listing = replica();
    const baseMs = Date.now();
    const first = await record(listing, customerId, 'orders', baseMs);
    const second = await record(listing, customerId, 'close', baseMs + 1);
    // The same batch listed again (its outcomes were found stored already), then withdrawn, as the journal does.
    const again = await listing.append(
      { _id: first, customer_id: customerId, kind: 'orders', created_at: new Date(baseMs) },
      new Date(baseMs + 2),
      { settled: true, orders_summary: { requested: 1, filled: 1, placed: 0, failed: 0, unknown: 0 } },
    );
    expect(again).toHaveLength(2);
    await listing.retract(again);
    const entries = await store.batchListing.find({ customer_id: customerId, batch_id: first }).toArray();
    expect(entries).toHaveLength(4);
    expect(
      entries
        .filter((entry) => entry.retracted)
        .map((entry) => entry._id)
        .sort(),
    ).toEqual([...again].sort());
    expect(await walk(replica(), customerId, { limit: 1 })).toEqual([second, first]);
    expect(await walk(replica(), customerId, { kind: 'orders', limit: 5 })).toEqual([first]);
  });
});

describe('grouped inserts report each document', () => {
  it('tells inserted from duplicate per document within one command', async () => {
    const writer = new GroupWriter(store.batchListing);
    const document = (id: string) => ({
      _id: id,
      customer_id: 'cus_grouped00001',
      batch_id: 'bat_x',
      kind: 'orders' as const,
      created_at: new Date(),
      recorded_at: new Date(),
      settled: true,
    });
    expect(await writer.insertEach([document('g:1')])).toEqual(['inserted']);
    const [mixed, again] = await Promise.all([writer.insertEach([document('g:2'), document('g:1')]), writer.insertEach([document('g:3')])]);
    expect(mixed).toEqual(['inserted', 'duplicate']);
    expect(again).toEqual(['inserted']);
    expect(await store.batchListing.countDocuments({ customer_id: 'cus_grouped00001' })).toBe(3);
  });
});

describe('grouped deletes that linger', () => {
  it('share one command among the deletes asked within the linger, each caller told when its own is done', async () => {
    const markers = store.openBatches.collection;
    const ids = ['linger:1', 'linger:2', 'linger:3'];
    await markers.insertMany(ids.map((_id) => ({ _id, created_at: new Date(), deadline_at: new Date() })));
    const commands: string[] = [];
    const counted = {
      collectionName: markers.collectionName,
      insertMany: markers.insertMany.bind(markers),
      deleteMany: (filter: { _id: { $in: string[] } }) => {
        commands.push(`delete:${filter._id.$in.length}`);
        return markers.deleteMany(filter);
      },
    };
    const lingering = new GroupWriter(counted, { deleteLingerMs: 100 });
    const deleted: Array<Promise<void>> = [];
    for (const id of ids) {
      deleted.push(lingering.delete(id));
      // Each in an event-loop turn of its own: without the linger, a command each.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(commands).toEqual([]);
    await Promise.all(deleted);
    expect(commands).toEqual(['delete:3']);
    expect(await markers.countDocuments({ _id: { $in: ids } })).toBe(0);

    // Without a linger each turn's delete is a command of its own.
    await markers.insertMany(ids.map((_id) => ({ _id, created_at: new Date(), deadline_at: new Date() })));
    const prompt = new GroupWriter(counted);
    for (const id of ids) await prompt.delete(id);
    expect(commands.slice(1)).toEqual(['delete:1', 'delete:1', 'delete:1']);
    expect(await markers.countDocuments({ _id: { $in: ids } })).toBe(0);
  });
});

describe('grouped inserts cut off by a lost connection', () => {
  it('fail every document of the command, none reported inserted, and the next write goes through', async () => {
    const target = new URL(inject('mongodbUrl').replace(/^mongodb:/, 'http:'));
    const proxy = await startTcpProxy(target.hostname, Number(target.port));
    const client = await connectMongo(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, { serverSelectionTimeoutMS: 2_000 });
    try {
      const viaProxy = createExecutionStore(client.db(databaseName(prefix, 'execution')));
      const writer = new GroupWriter(viaProxy.openBatches);
      const marker = (id: string) => ({ _id: id, created_at: new Date(), deadline_at: new Date() });
      await writer.insert([marker('cut:warm')]);
      const cut = proxy.cutNextRequest();
      // Two callers in one command, as concurrent batches share it: the insert never reaches the store.
      const outcomes = await Promise.allSettled([writer.insert([marker('cut:1')]), writer.insertEach([marker('cut:2'), marker('cut:3')])]);
      await cut;
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      expect(await store.openBatches.countDocuments({ _id: { $in: ['cut:1', 'cut:2', 'cut:3'] } })).toBe(0);
      await eventually(async () => (await writer.insertEach([marker('cut:1')]))[0] === 'inserted', 10_000, 100);
      expect(await store.openBatches.countDocuments({ _id: { $in: ['cut:warm', 'cut:1'] } })).toBe(2);
    } finally {
      await client.close();
      await proxy.stop();
    }
  });
});
