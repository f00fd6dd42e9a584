import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMongo, insertIfAbsent, isDuplicateKeyError, type Db, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';

/**
 * The storage guarantees every service builds on (docs/architecture.md, "Storage rules"), checked against the real store the
 * suite runs on — FerretDB locally, MongoDB wherever MONGODB_URL points. If one of these ever fails, the
 * money and idempotency code above it is no longer safe.
 */
let client: MongoClient;
let database: Db;

beforeAll(async () => {
  client = await connectMongo(inject('mongodbUrl'));
  database = client.db(`${testDatabasePrefix('store')}guarantees`);
});

afterAll(async () => {
  await database.dropDatabase().catch(() => undefined);
  await client.close();
});

describe('store guarantees', () => {
  it('lets exactly one of many racing inserts of one _id win, every round', async () => {
    const collection = database.collection<{ _id: string; writer: number }>('race_id');
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, writer) => insertIfAbsent(collection, { _id: `slot-${round}`, writer })),
      );
      expect(results.filter(Boolean).length).toBe(1);
    }
  });

  it('enforces a unique secondary index under the same race', async () => {
    const collection = database.collection<{ _id: string; entry_id: string }>('race_unique');
    await collection.createIndex({ entry_id: 1 }, { unique: true });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) => collection.insertOne({ _id: `doc-${index}`, entry_id: 'topup:tx-1' })),
    );
    expect(results.filter((result) => result.status === 'fulfilled').length).toBe(1);
    for (const result of results) if (result.status === 'rejected') expect(isDuplicateKeyError(result.reason)).toBe(true);
  });

  it('answers _id lookups and upserts', async () => {
    const collection = database.collection<{ _id: string; n?: number; created?: boolean }>('lookups');
    await collection.updateOne({ _id: 'u' }, { $setOnInsert: { created: true }, $set: { n: 1 } }, { upsert: true });
    expect(await collection.findOne({ _id: 'u' })).toEqual({ _id: 'u', created: true, n: 1 });
    expect(await collection.findOne({ _id: 'missing' })).toBeNull();
  });
});
