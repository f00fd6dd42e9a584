import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createIdempotency } from '../src/app/idempotency';
import { createRateLimiter } from '../src/app/rate-limiter';
import { createGatewayStore, ensureGatewayIndexes, type GatewayStore } from '../src/store/gateway-store';

let mongo: MongoClient;
let store: GatewayStore;
const clock = new ManualClock('2027-05-10T12:00:05Z');

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'));
  store = createGatewayStore(mongo.db(`${testDatabasePrefix('rl')}gateway`));
  await ensureGatewayIndexes(store);
});

afterAll(async () => {
  await store.database.dropDatabase().catch(() => undefined);
  await mongo.close();
});

describe('rate limiter shared through the store', () => {
  it('admits exactly the limit across two replicas racing, then refuses until the first admission is a minute old', async () => {
    // Two limiter instances stand for two gateway replicas: they share nothing but the store.
    const replicas = [createRateLimiter({ store, clock }), createRateLimiter({ store, clock })];
    const limit = 60;
    const decisions = await Promise.all(
      Array.from({ length: 90 }, (_, index) => replicas[index % 2]!.take('execution', 'cus_race', limit)),
    );
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted.length).toBe(limit);
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused.every((decision) => decision.remaining === 0 && decision.retryAfterSeconds === 60)).toBe(true);
    // One slot in the store per admitted request, claimed by one replica.
    const slots = await store.rateLimitSlots.countDocuments({ _id: { $regex: '^execution:cus_race:' } });
    expect(slots).toBe(limit);
  });

  it('counts buckets and customers separately and admits again a minute after', async () => {
    const limiter = createRateLimiter({ store, clock });
    for (let index = 0; index < 3; index++) expect((await limiter.take('execution', 'cus_a', 3)).allowed).toBe(true);
    expect((await limiter.take('execution', 'cus_a', 3)).allowed).toBe(false);
    expect((await limiter.take('other', 'cus_a', 3)).allowed).toBe(true);
    expect((await limiter.take('execution', 'cus_b', 3)).allowed).toBe(true);
    clock.advanceMs(60_000);
    const next = await limiter.take('execution', 'cus_a', 3);
    expect(next).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('lets a fresh replica find the next free slot after those another replica took', async () => {
    const first = createRateLimiter({ store, clock });
    for (let index = 0; index < 40; index++) await first.take('other', 'cus_gallop', 600);
    const taken = 40;
    const fresh = createRateLimiter({ store, clock });
    const decision = await fresh.take('other', 'cus_gallop', 600);
    expect(decision).toMatchObject({ allowed: true, remaining: 600 - (taken + 1) });
  });
});

describe('idempotency', () => {
  const request = (customerId: string, key: string, body: unknown, scope = 'orders') => ({
    customerId,
    scope,
    key,
    body,
    resourcePrefix: 'bat',
  });

  it('runs the work once for concurrent duplicates, replays the stored response, and refuses a different body', async () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 15 * 60_000 });
    let executions = 0;
    const work = async (batchId: string) => {
      executions++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { statusCode: 200, body: { batch_id: batchId, idempotent_replay: false, n: executions } };
    };
    const body = { orders: [{ account_id: 'a', volume: 1 }], defaults: { symbol: 'EURUSD' } };
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => idempotency.run(request('cus_1', 'key-1', body), work)));
    expect(executions).toBe(1);
    // One request ran the work; a duplicate that arrived while it ran is refused as in progress, and one that
    // arrived after it finished (the store is slow under load) replays its response: none runs it again.
    const fulfilled = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(fulfilled.filter((outcome) => !outcome.replay).length).toBe(1);
    const original = fulfilled.find((outcome) => !outcome.replay)!.body;
    expect(original.batch_id).toMatch(/^bat_[0-9A-Za-z]{20}$/);
    for (const outcome of fulfilled)
      expect(outcome.body).toMatchObject({ batch_id: original.batch_id, n: 1, idempotent_replay: outcome.replay });
    for (const result of settled) {
      if (result.status === 'rejected') expect((result.reason as AppError).code).toBe('idempotency_key_in_progress');
    }
    const replay = await idempotency.run(
      request('cus_1', 'key-1', { defaults: { symbol: 'EURUSD' }, orders: [{ volume: 1, account_id: 'a' }] }),
      work,
    );
    expect(replay.replay).toBe(true);
    expect(replay.body).toEqual({ batch_id: original.batch_id, idempotent_replay: true, n: 1 });
    expect(executions).toBe(1);
    await expect(idempotency.run(request('cus_1', 'key-1', { ...body, defaults: { symbol: 'GBPUSD' } }), work)).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });
    // A key belongs to the customer, not to a route: the same key and body on another route is another request.
    await expect(idempotency.run(request('cus_1', 'key-1', body, 'orders.close'), work)).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });
    // Another customer's key of the same name is theirs.
    const other = await idempotency.run(request('cus_2', 'key-1', body), work);
    expect(other.replay).toBe(false);
    expect(other.body.batch_id).not.toBe(original.batch_id);
    expect(executions).toBe(2);
  });

  it("after the key's lifetime the request is new, with a new resource id", async () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 15 * 60_000 });
    const ids: string[] = [];
    const work = async (batchId: string) => {
      ids.push(batchId);
      return { statusCode: 200, body: { batch_id: batchId } };
    };
    await idempotency.run(request('cus_3', 'ttl', {}), work);
    clock.advanceMs(15 * 60_000 - 1);
    expect((await idempotency.run(request('cus_3', 'ttl', {}), work)).replay).toBe(true);
    clock.advanceMs(1);
    const after = await idempotency.run(request('cus_3', 'ttl', {}), work);
    expect(after.replay).toBe(false);
    expect(ids).toHaveLength(2);
    expect(ids[1]).not.toBe(ids[0]);
    // The new generation is itself replayed, and the old response is gone with its record.
    expect((await idempotency.run(request('cus_3', 'ttl', {}), work)).body).toEqual({ batch_id: ids[1] });
    expect(await store.idempotencyResults.countDocuments({ _id: `cus_3:ttl:${ids[0]}` })).toBe(0);
  });

  it('keeps the resource id when the work failed retriably, so the retry re-addresses the same work', async () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 15 * 60_000 });
    const ids: string[] = [];
    const failing = async (batchId: string): Promise<{ statusCode: number; body: { batch_id: string } }> => {
      ids.push(batchId);
      throw new AppError('unavailable', 'execution did not answer by the deadline');
    };
    const work = async (batchId: string) => {
      ids.push(batchId);
      return { statusCode: 200, body: { batch_id: batchId } };
    };
    await expect(idempotency.run(request('cus_4', 'flaky', { n: 1 }), failing)).rejects.toMatchObject({ code: 'unavailable' });
    await expect(idempotency.run(request('cus_4', 'flaky', { n: 2 }), work)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    const retry = await idempotency.run(request('cus_4', 'flaky', { n: 1 }), work);
    expect(retry.replay).toBe(false);
    expect(ids).toEqual([ids[0], ids[0]]);
    // A 4xx is the request's answer: stored and replayed, not retried.
    const refused = async (): Promise<{ statusCode: number; body: unknown }> => {
      throw new AppError('insufficient_balance', 'the balance cannot pay it');
    };
    await expect(idempotency.run(request('cus_4', 'poor', {}), refused)).rejects.toMatchObject({ code: 'insufficient_balance' });
    await expect(idempotency.run(request('cus_4', 'poor', {}), work)).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect(ids).toHaveLength(2);
  });

  it('lets a retry take over a claim whose holder vanished once the lease has passed, on the same resource id', async () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 15 * 60_000, leaseMs: 30_000 });
    let release!: () => void;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const ids: string[] = [];
    const stuck = idempotency.run(request('cus_5', 'crash', {}), async (batchId) => {
      ids.push(batchId);
      await hanging;
      return { statusCode: 200, body: { batch_id: batchId, by: 'first' } };
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const work = async (batchId: string) => {
      ids.push(batchId);
      return { statusCode: 200, body: { batch_id: batchId, by: 'second' } };
    };
    await expect(idempotency.run(request('cus_5', 'crash', {}), work)).rejects.toMatchObject({ code: 'idempotency_key_in_progress' });
    clock.advanceMs(30_000);
    const takenOver = await idempotency.run(request('cus_5', 'crash', {}), work);
    expect(takenOver.body).toEqual({ batch_id: ids[0], by: 'second' });
    expect(ids).toEqual([ids[0], ids[0]]);
    // The vanished holder's late answer does not replace the stored one.
    release();
    await stuck;
    expect((await idempotency.run(request('cus_5', 'crash', {}), work)).body).toEqual({ batch_id: ids[0], by: 'second' });
  });

  it('sweeps expired records and their responses', async () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 60_000 });
    await idempotency.run(request('cus_6', 'old', {}), async (batchId) => ({ statusCode: 200, body: { batch_id: batchId } }));
    clock.advanceMs(60_000);
    expect(await idempotency.sweep()).toBeGreaterThanOrEqual(1);
    expect(await store.idempotency.countDocuments({ customer_id: 'cus_6' })).toBe(0);
    expect(await store.idempotencyResults.countDocuments({ _id: { $regex: '^cus_6:' } })).toBe(0);
  });

  it('validates key length', () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 1_000 });
    expect(idempotency.validateKey('a'.repeat(128))).toBe('a'.repeat(128));
    expect(() => idempotency.validateKey('a'.repeat(129))).toThrow(AppError);
    expect(() => idempotency.validateKey('has space')).toThrow(AppError);
    expect(idempotency.validateKey(undefined)).toBeUndefined();
  });
});
