import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { isStoreUnavailable } from '@mtx/shared/grpc';
import { eventually, startTcpProxy } from '@mtx/shared/testing';
import { createRateLimiter, rateLimitWaitersMax, type RateLimitDecision } from '../src/app/rate-limiter';
import { connectMongo } from '@mtx/shared/mongo';
import { createGatewayStore, type GatewayStore } from '../src/store/gateway-store';
import { mostInAnyMinute, useRateLimitStore, windowMs } from './rate-limit-store';

const slots = useRateLimitStore('rlslide');
let store: GatewayStore;
let insertCommands: number[];
beforeAll(() => {
  store = slots.store;
  insertCommands = slots.insertCommands;
});

describe('sliding one-minute rate limit shared through the store', () => {
  it('120 calls straddling a minute edge on two replicas: at most 60 in any 60 s, then exactly the freed ones pass', async () => {
    // 120 calls 40 ms apart from 2.4 s before a minute edge to 2.4 s after it: a fixed window admits 119 here.
    const clock = new ManualClock('2027-05-10T12:00:57.600Z');
    const replicas = [createRateLimiter({ store, clock }), createRateLimiter({ store, clock })];
    const limit = 60;
    const admittedAtMs: number[] = [];
    const refusals: Array<{ atMs: number; decision: RateLimitDecision }> = [];
    const call = async (index: number) => {
      const decision = await replicas[index % 2]!.take('execution', 'cus_edge', limit);
      if (decision.allowed) admittedAtMs.push(clock.now().getTime());
      else refusals.push({ atMs: clock.now().getTime(), decision });
      return decision;
    };
    for (let index = 0; index < 120; index++) {
      await call(index);
      clock.advanceMs(40);
    }
    expect(admittedAtMs).toHaveLength(limit);
    expect(mostInAnyMinute(admittedAtMs)).toBe(limit);
    // Every refusal says when the next call passes: the first admission's time plus 60 s.
    const firstAdmittedMs = Math.min(...admittedAtMs);
    for (const { atMs, decision } of refusals) {
      expect(decision).toMatchObject({ allowed: false, remaining: 0 });
      expect(decision.retryAfterSeconds).toBe(Math.ceil((firstAdmittedMs + windowMs - atMs) / 1000));
      expect(decision.resetSeconds).toBe(decision.retryAfterSeconds);
    }
    // One call every 100 ms for two more minutes, on both replicas: still at most 60 in any 60 s, and every slot
    // that leaves the window is used again (a fixed window would also have admitted, a stricter limiter fewer).
    const startMs = clock.now().getTime();
    for (let index = 0; clock.now().getTime() < startMs + 2 * windowMs; index++) {
      await call(index);
      clock.advanceMs(100);
    }
    expect(mostInAnyMinute(admittedAtMs)).toBe(limit);
    const lastMinute = admittedAtMs.filter((atMs) => atMs >= clock.now().getTime() - windowMs);
    expect(lastMinute.length).toBeGreaterThanOrEqual(limit - 1);
  });

  it('Retry-After is exact: a call passes at that second and not a second before', async () => {
    const clock = new ManualClock('2027-05-10T12:03:10Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 5;
    for (let index = 0; index < limit; index++) {
      expect(await limiter.take('execution', 'cus_retry', limit)).toMatchObject({ allowed: true, remaining: limit - 1 - index });
      clock.advanceMs(7_300);
    }
    const refused = await limiter.take('execution', 'cus_retry', limit);
    // The first call was 36.5 s ago: it leaves the window in 23.5 s, so Retry-After is 24.
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 24, resetSeconds: 24 });
    clock.advanceMs((refused.retryAfterSeconds - 1) * 1000);
    expect((await limiter.take('execution', 'cus_retry', limit)).allowed).toBe(false);
    clock.advanceMs(1000);
    // Admitted, with one slot free again and the next leaving 7.3 s after the first did.
    const admitted = await limiter.take('execution', 'cus_retry', limit);
    expect(admitted).toMatchObject({ allowed: true, remaining: 0 });
    expect(admitted.resetSeconds).toBe(Math.ceil((7_300 - 500) / 1000));
  });

  it('one replica, limit 60, 200 concurrent takes: exactly 60 admitted with remaining 59..0 once each, in one insert', async () => {
    const clock = new ManualClock('2027-05-10T12:05:05Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 60;
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.take('execution', 'cus_one', limit)));
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted.map((decision) => decision.remaining).sort((left, right) => left - right)).toEqual(
      Array.from({ length: limit }, (_, index) => index),
    );
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused).toHaveLength(140);
    expect(refused.every((decision) => decision.retryAfterSeconds === 60 && decision.resetSeconds === 60)).toBe(true);
    // The burst queued behind the first take's look at the previous minute: one insert claims every slot.
    expect(insertCommands).toEqual([limit]);
    expect(await store.rateLimitSlots.countDocuments({ _id: { $regex: '^execution:cus_one:' } })).toBe(limit);
    clock.advanceMs(windowMs);
    expect(await limiter.take('execution', 'cus_one', limit)).toMatchObject({ allowed: true, remaining: limit - 1 });
  });

  it('two replicas, limit 600, 1,500 interleaved concurrent takes: exactly 600 admitted, each remaining once', async () => {
    const clock = new ManualClock('2027-05-10T12:07:05Z');
    const replicas = [createRateLimiter({ store, clock }), createRateLimiter({ store, clock })];
    const limit = 600;
    const decisions = await Promise.all(Array.from({ length: 1_500 }, (_, index) => replicas[index % 2]!.take('other', 'cus_two', limit)));
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted).toHaveLength(limit);
    // Each admitted request knows its place in the shared order, whichever replica admitted it.
    expect(new Set(admitted.map((decision) => decision.remaining)).size).toBe(limit);
    expect(await store.rateLimitSlots.countDocuments({ _id: { $regex: '^other:cus_two:' } })).toBe(limit);
  });

  it('a fresh replica continues the order another replica started, and counts its admissions', async () => {
    const clock = new ManualClock('2027-05-10T12:09:05Z');
    const first = createRateLimiter({ store, clock });
    for (let index = 0; index < 40; index++) await first.take('other', 'cus_gallop', 600);
    clock.advanceMs(30_000);
    // In the next minute, the previous minute's 40 still count.
    const fresh = createRateLimiter({ store, clock });
    expect(await fresh.take('other', 'cus_gallop', 600)).toMatchObject({ allowed: true, remaining: 600 - 41, resetSeconds: 30 });
  });

  it('past the queue bound, requests are refused for a second instead of queueing, and none is over-admitted', async () => {
    const clock = new ManualClock('2027-05-10T12:11:05Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 5_000;
    const decisions = await Promise.all(Array.from({ length: rateLimitWaitersMax + 100 }, () => limiter.take('other', 'cus_flood', limit)));
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((decision) => decision.retryAfterSeconds === 1)).toBe(true);
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(await store.rateLimitSlots.countDocuments({ _id: { $regex: '^other:cus_flood:' } })).toBe(admitted.length);
  });

  it('sweeps minutes before the previous one', async () => {
    const clock = new ManualClock('2027-05-10T12:13:05Z');
    const limiter = createRateLimiter({ store, clock });
    await limiter.take('other', 'cus_sweep', 10);
    clock.advanceMs(2 * windowMs);
    await limiter.take('other', 'cus_sweep', 10);
    // The sweep runs behind the answer: wait for it rather than for a fixed time.
    const current = Math.floor(clock.now().getTime() / windowMs);
    await eventually(async () => {
      const minutes = (await store.rateLimitSlots.find({ _id: { $regex: '^other:cus_sweep:' } }).toArray()).map((slot) => slot.window);
      expect(minutes).toEqual([current]);
      return true;
    }, 5_000);
  });

  it('fails every waiting request with the store error during an outage, admits none, and recovers', async () => {
    const target = new URL(inject('mongodbUrl').replace(/^mongodb:/, 'http:'));
    const proxy = await startTcpProxy(target.hostname, Number(target.port));
    const outageClient = await connectMongo(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, {
      serverSelectionTimeoutMS: 1_500,
      socketTimeoutMS: 2_000,
    });
    try {
      const outageStore = createGatewayStore(outageClient.db(store.database.databaseName));
      const clock = new ManualClock('2027-05-10T12:06:05Z');
      const limiter = createRateLimiter({ store: outageStore, clock });
      // Every admitted request claims a slot in the store.
      const limit = 20;
      expect((await limiter.take('other', 'cus_outage', limit)).allowed).toBe(true);
      await proxy.stop();
      const startedMs = Date.now();
      const settled = await Promise.allSettled(Array.from({ length: 10 }, () => limiter.take('other', 'cus_outage', limit)));
      const elapsedMs = Date.now() - startedMs;
      expect(settled.every((result) => result.status === 'rejected')).toBe(true);
      for (const result of settled) if (result.status === 'rejected') expect(isStoreUnavailable(result.reason)).toBe(true);
      // Waiters share the failed reservation's error instead of each retrying into the outage in turn.
      expect(elapsedMs).toBeLessThan(5_000);
      await proxy.start();
      const recovered = await limiter.take('other', 'cus_outage', limit);
      expect(recovered.allowed).toBe(true);
    } finally {
      await proxy.stop();
      await outageClient.close();
    }
  });
});
