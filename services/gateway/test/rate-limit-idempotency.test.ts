import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createIdempotency } from '../src/domain/idempotency';
import { createRateLimiter } from '../src/domain/rate-limiter';
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
  it('admits exactly the limit across two replicas racing in one window, then refuses with the reset time', async () => {
    // Two limiter instances stand for two gateway replicas: they share nothing but the store.
    const replicas = [createRateLimiter({ store, clock }), createRateLimiter({ store, clock })];
    const limit = 60;
    const decisions = await Promise.all(Array.from({ length: 90 }, (_, index) => replicas[index % 2]!.take('execution', 'cus_race', limit)));
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted.length).toBe(limit);
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused.every((decision) => decision.remaining === 0 && decision.resetSeconds === 55)).toBe(true);
    const slots = await store.rateLimitSlots.countDocuments({ _id: { $regex: '^execution:cus_race:' } });
    expect(slots).toBe(limit);
  });

  it('counts buckets and customers separately and opens a new window on the minute', async () => {
    const limiter = createRateLimiter({ store, clock });
    for (let index = 0; index < 3; index++) expect((await limiter.take('execution', 'cus_a', 3)).allowed).toBe(true);
    expect((await limiter.take('execution', 'cus_a', 3)).allowed).toBe(false);
    expect((await limiter.take('other', 'cus_a', 3)).allowed).toBe(true);
    expect((await limiter.take('execution', 'cus_b', 3)).allowed).toBe(true);
    clock.advanceMs(60_000);
    const next = await limiter.take('execution', 'cus_a', 3);
    expect(next).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('lets a fresh replica find the next free slot without walking every slot', async () => {
    const first = createRateLimiter({ store, clock });
    for (let index = 0; index < 40; index++) await first.take('other', 'cus_gallop', 600);
    // The first replica reserved its slots in growing batches and may still hold some unused: those are taken too.
    const taken = 40 + first.reservedSlots('other', 'cus_gallop').length;
    const fresh = createRateLimiter({ store, clock });
    const decision = await fresh.take('other', 'cus_gallop', 600);
    expect(decision).toMatchObject({ allowed: true, remaining: 600 - (taken + 1) });
  });
});

describe('idempotency', () => {
  it('runs the work once for concurrent duplicates, replays the stored response, and refuses a different body', async () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 15 * 60_000 });
    let executions = 0;
    const work = async () => {
      executions++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { statusCode: 200, body: { batch_id: 'b1', idempotent_replay: false, n: executions } };
    };
    const body = { orders: [{ account_id: 'a', volume: 1 }], defaults: { symbol: 'EURUSD' } };
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => idempotency.run('cus_1', 'orders', 'key-1', body, work)));
    expect(executions).toBe(1);
    // One request ran the work; a duplicate that arrived while it ran is refused as in progress, and one that
    // arrived after it finished (the store is slow under load) replays its response: none runs it again.
    const fulfilled = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(fulfilled.filter((outcome) => !outcome.replay).length).toBe(1);
    for (const outcome of fulfilled) expect(outcome.body).toMatchObject({ batch_id: 'b1', n: 1, idempotent_replay: outcome.replay });
    for (const result of settled) {
      if (result.status === 'rejected') expect((result.reason as AppError).code).toBe('idempotency_key_in_progress');
    }
    const replay = await idempotency.run('cus_1', 'orders', 'key-1', { defaults: { symbol: 'EURUSD' }, orders: [{ volume: 1, account_id: 'a' }] }, work);
    expect(replay.replay).toBe(true);
    expect(replay.body).toEqual({ batch_id: 'b1', idempotent_replay: true, n: 1 });
    expect(executions).toBe(1);
    await expect(idempotency.run('cus_1', 'orders', 'key-1', { ...body, defaults: { symbol: 'GBPUSD' } }, work)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    // The same key belongs to each customer and each route separately.
    expect((await idempotency.run('cus_2', 'orders', 'key-1', body, work)).replay).toBe(false);
    expect((await idempotency.run('cus_1', 'orders.close', 'key-1', body, work)).replay).toBe(false);
    expect(executions).toBe(3);
  });

  it('forgets a key after its lifetime and releases it when the work failed retriably', async () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 15 * 60_000 });
    let executions = 0;
    const work = async () => ({ statusCode: 200, body: { n: ++executions } });
    await idempotency.run('cus_3', 'orders', 'ttl', {}, work);
    clock.advanceMs(15 * 60_000 + 1);
    expect((await idempotency.run('cus_3', 'orders', 'ttl', {}, work)).replay).toBe(false);
    await expect(idempotency.run('cus_3', 'orders', 'flaky', {}, async () => Promise.reject(new AppError('unavailable', 'down')))).rejects.toMatchObject({ code: 'unavailable' });
    expect((await idempotency.run('cus_3', 'orders', 'flaky', {}, work)).replay).toBe(false);
    expect(executions).toBe(3);
  });

  it('validates key length', () => {
    const idempotency = createIdempotency({ store, clock, ttlMs: 1_000 });
    expect(idempotency.validateKey('a'.repeat(128))).toBe('a'.repeat(128));
    expect(() => idempotency.validateKey('a'.repeat(129))).toThrow(AppError);
    expect(() => idempotency.validateKey('has space')).toThrow(AppError);
    expect(idempotency.validateKey(undefined)).toBeUndefined();
  });
});
