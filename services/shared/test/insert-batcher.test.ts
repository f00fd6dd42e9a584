import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMongo, isDuplicateKeyError, type MongoClient } from '../src/store/mongo';
import * as grpc from '@grpc/grpc-js';
import { AppError } from '../src/service/errors';
import { toGrpcError } from '../src/rpc/grpc';
import { InsertBatcher } from '../src/store/insert-batcher';
import { WriteGate } from '../src/store/write-gate';

interface Row {
  _id: string;
  entry_id: string;
  n: number;
}

let mongo: MongoClient;
const inserts: number[] = [];
const database = `batcher_${crypto.randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
  mongo.on('commandStarted', (event) => {
    if (event.commandName === 'insert') inserts.push((event.command as { documents?: unknown[] }).documents?.length ?? 0);
  });
});

afterAll(async () => {
  await mongo
    ?.db(database)
    .dropDatabase()
    .catch(() => undefined);
  await mongo?.close();
});

async function collection(name: string) {
  const rows = mongo.db(database).collection<Row>(name);
  await mongo
    .db(database)
    .createCollection(name)
    .catch(() => undefined);
  await rows.createIndex({ entry_id: 1 }, { unique: true });
  return rows;
}

describe('InsertBatcher', () => {
  it('gives each concurrent insert its own outcome: in, or E11000 on _id or on a unique index, exactly as the store decided', async () => {
    const rows = await collection('outcomes');
    await rows.insertMany([
      { _id: 'taken:1', entry_id: 'e-taken-1', n: 0 },
      { _id: 'taken:2', entry_id: 'e-taken-2', n: 0 },
    ]);
    const batcher = new InsertBatcher(rows);
    inserts.length = 0;
    const attempts: Array<{ label: string; row: Row }> = [];
    for (let n = 0; n < 150; n++) attempts.push({ label: 'fresh', row: { _id: `fresh:${n}`, entry_id: `e-fresh-${n}`, n } });
    attempts.push({ label: 'same _id', row: { _id: 'taken:1', entry_id: 'e-other-1', n: 1 } });
    attempts.push({ label: 'same entry_id', row: { _id: 'other:2', entry_id: 'e-taken-2', n: 2 } });
    // Ten keys, each raced by two inserts in the same batch: the store lets exactly one of each pair in.
    for (let n = 0; n < 10; n++) {
      attempts.push({ label: `race ${n}`, row: { _id: `race:${n}`, entry_id: `e-race-${n}-a`, n } });
      attempts.push({ label: `race ${n}`, row: { _id: `race:${n}`, entry_id: `e-race-${n}-b`, n } });
    }
    const outcomes = await Promise.all(
      attempts.map(({ row }) =>
        batcher.insert(row).then(
          () => 'in',
          (error: unknown) => (isDuplicateKeyError(error) ? 'duplicate' : `error ${String(error)}`),
        ),
      ),
    );
    const byLabel = (label: string) => outcomes.filter((_, index) => attempts[index]!.label === label);
    expect(byLabel('fresh').every((outcome) => outcome === 'in')).toBe(true);
    expect(byLabel('same _id')).toEqual(['duplicate']);
    expect(byLabel('same entry_id')).toEqual(['duplicate']);
    for (let n = 0; n < 10; n++) expect(byLabel(`race ${n}`).sort()).toEqual(['duplicate', 'in']);
    // What the callers were told is what the store holds.
    const stored = await rows.find({}).toArray();
    expect(stored.length).toBe(2 + 150 + 10);
    for (let n = 0; n < 10; n++) {
      const winner = attempts.findIndex(({ label }, index) => label === `race ${n}` && outcomes[index] === 'in');
      expect(stored.find((row) => row._id === `race:${n}`)?.entry_id).toBe(attempts[winner]!.row.entry_id);
    }
    // Grouped: far fewer insert commands than documents.
    expect(inserts.length).toBeLessThan(attempts.length / 4);
    expect(inserts.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(attempts.length);
  });

  it('insertIfAbsent answers false for a key already there and true for a new one', async () => {
    const rows = await collection('absent');
    const batcher = new InsertBatcher(rows);
    const results = await Promise.all([
      batcher.insertIfAbsent({ _id: 'k', entry_id: 'a', n: 1 }),
      batcher.insertIfAbsent({ _id: 'k', entry_id: 'b', n: 2 }),
      batcher.insertIfAbsent({ _id: 'j', entry_id: 'c', n: 3 }),
    ]);
    expect(results.filter(Boolean).length).toBe(2);
    expect(results[2]).toBe(true);
    expect(await rows.countDocuments({})).toBe(2);
  });

  it('with a shared write gate, two collections never have two insert commands at the store at once', async () => {
    const first = await collection('gated_a');
    const second = await collection('gated_b');
    const gate = new WriteGate(1);
    const batchers = [new InsertBatcher(first, { gate }), new InsertBatcher(second, { gate })];
    let open = 0;
    let mostOpen = 0;
    const started = (event: { commandName: string; command: { insert?: string } }) => {
      if (event.commandName === 'insert' && String(event.command.insert).startsWith('gated_')) mostOpen = Math.max(mostOpen, ++open);
    };
    const ended = (event: { commandName: string }) => {
      if (event.commandName === 'insert') open = Math.max(0, open - 1);
    };
    mongo.on('commandStarted', started);
    mongo.on('commandSucceeded', ended);
    mongo.on('commandFailed', ended);
    try {
      await Promise.all(Array.from({ length: 400 }, (_, n) => batchers[n % 2]!.insert({ _id: `g:${n}`, entry_id: `e-g-${n}`, n })));
    } finally {
      mongo.off('commandStarted', started);
      mongo.off('commandSucceeded', ended);
      mongo.off('commandFailed', ended);
    }
    expect(mostOpen).toBe(1);
    expect((await first.countDocuments({})) + (await second.countDocuments({}))).toBe(400);
  });

  it('refuses inserts beyond its queue bound at once, writing none of them', async () => {
    const rows = await collection('bounded');
    const batcher = new InsertBatcher(rows, { queueMax: 3 });
    const refusals: unknown[] = [];
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        batcher.insert({ _id: `b:${n}`, entry_id: `e-b-${n}`, n }).then(
          () => 'in',
          (error: unknown) => {
            refusals.push(error);
            return 'refused';
          },
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'in').length).toBe(3);
    expect(await rows.countDocuments({})).toBe(3);
    // A full queue is the service being busy, not a bug: 503 over HTTP, UNAVAILABLE over gRPC, so callers retry.
    expect(refusals).toHaveLength(7);
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(AppError);
      expect((refusal as AppError).httpStatus).toBe(503);
      expect(toGrpcError(refusal).code).toBe(grpc.status.UNAVAILABLE);
    }
  });
});
