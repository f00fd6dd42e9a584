import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';

/**
 * What the rate limiter may build on: whether `findOneAndUpdate` with `$inc` (and an upsert) counts exactly under
 * concurrency on the test store, from two clients as two gateway replicas would. MongoDB 7 does; the FerretDB
 * build this repository runs locally is measured here, and the limiter's design (app/rate-limiter.ts) follows
 * what this shows.
 */
let first: MongoClient;
let second: MongoClient;
const database = `${testDatabasePrefix('atomic')}gateway`;

beforeAll(async () => {
  first = await connectMongo(inject('mongodbUrl'));
  second = await connectMongo(inject('mongodbUrl'));
});

afterAll(async () => {
  await first
    ?.db(database)
    .dropDatabase()
    .catch(() => undefined);
  await first?.close();
  await second?.close();
});

describe('store atomicity under concurrency', () => {
  it('counts N parallel $inc upserts across two clients: FerretDB loses updates, unique inserts never double', async () => {
    const increments = 200;
    const counters = [first, second].map((client) => client.db(database).collection<{ _id: string; count: number }>('counters'));
    const isFerret = Boolean((await first.db('admin').command({ buildInfo: 1 })).ferretdbVersion);
    const countedByRound: number[] = [];
    // A lost update needs two increments to overlap; a few rounds make sure they did.
    for (let round = 0; round < 5; round++) {
      const id = `probe-${round}`;
      await Promise.all(
        Array.from({ length: increments }, (_, index) =>
          counters[index % 2]!.findOneAndUpdate({ _id: id }, { $inc: { count: 1 } }, { upsert: true, returnDocument: 'after' }).catch(
            // Racing upserts may collide on _id (MongoDB retries those itself); such an increment is lost too.
            () => undefined,
          ),
        ),
      );
      countedByRound.push((await counters[0]!.findOne({ _id: id }))?.count ?? 0);
      if (!isFerret || countedByRound.at(-1)! < increments) break;
    }
    // MongoDB 7 counts exactly; FerretDB 1.24 reads, modifies and writes without a lock, and loses some.
    if (isFerret) expect(Math.min(...countedByRound)).toBeLessThan(increments);
    else expect(countedByRound).toEqual([increments]);

    // Inserts of one unique _id: exactly one wins, on either store. This is what the limiter claims slots with.
    const slots = [first, second].map((client) => client.db(database).collection<{ _id: string }>('slots'));
    const outcomes = await Promise.allSettled(
      Array.from({ length: increments }, (_, index) => slots[index % 2]!.insertOne({ _id: 'one' })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
  });
});
