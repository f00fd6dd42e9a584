import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { refusedOnlyDuplicates, refusedStatements } from '../src/store/bulk-write';
import { connectMongo, type MongoClient } from '../src/store/mongo';

let mongo: MongoClient;
const database = `bulk_${crypto.randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'));
});

afterAll(async () => {
  await mongo
    ?.db(database)
    .dropDatabase()
    .catch(() => undefined);
  await mongo?.close();
});

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('the command did not fail');
}

describe('the bulk-write decoder, against the real store', () => {
  it('names exactly the refused documents of an unordered insert, and the first of an ordered one', async () => {
    const rows = mongo.db(database).collection<{ _id: string }>('rows');
    await rows.insertMany([{ _id: 'b' }, { _id: 'd' }]);
    const documents = ['a', 'b', 'c', 'd', 'e'].map((_id) => ({ _id: `${_id}` }));

    const unordered = await failureOf(() => rows.insertMany(documents, { ordered: false }));
    expect(refusedStatements(unordered, documents.length)?.map((statement) => [statement.index, statement.code])).toEqual([
      [1, 11000],
      [3, 11000],
    ]);
    expect(refusedOnlyDuplicates(unordered, documents.length)).toBe(true);
    // What the decoder says stored is stored: every other document is in.
    expect((await rows.find({}).toArray()).map((row) => row._id).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);

    const more = ['f', 'a', 'g', 'c'].map((_id) => ({ _id }));
    const ordered = await failureOf(() => rows.insertMany(more, { ordered: true }));
    expect(refusedStatements(ordered, more.length)?.[0]).toMatchObject({ index: 1, code: 11000 });
    expect(await rows.countDocuments({ _id: { $in: ['f', 'g'] } })).toBe(1);
  });

  it('reads a one-document refusal, and says nothing where the failure names no document', async () => {
    const rows = mongo.db(database).collection<{ _id: string }>('single');
    await rows.insertOne({ _id: 'x' });
    const duplicate = await failureOf(() => rows.insertOne({ _id: 'x' }));
    expect(refusedStatements(duplicate, 1)).toEqual([expect.objectContaining({ index: 0, code: 11000 })]);
    // A plain E11000 cannot tell which of several documents it was about.
    expect(refusedStatements(duplicate, 2)).toBeNull();
    // A lost connection, a timeout or any other failure leaves unknown what was stored.
    expect(refusedStatements(new Error('connection reset'), 3)).toBeNull();
    expect(refusedOnlyDuplicates(new Error('connection reset'), 3)).toBe(false);
  });
});
