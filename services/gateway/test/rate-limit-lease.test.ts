import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { createRateLimiter } from '../src/app/rate-limiter';
import type { GatewayStore } from '../src/store/gateway-store';
import { mostInAnyMinute, useRateLimitStore, windowMs } from './rate-limit-store';

/**
 * Slots claimed ahead (`leaseMs`): a steadily used bucket's requests are admitted from slots the replica already
 * holds, so their answers wait for no store write, while the limit stays exact across replicas.
 */
const slots = useRateLimitStore('rllease');
let store: GatewayStore;
let insertCommands: number[];
beforeAll(() => {
  store = slots.store;
  insertCommands = slots.insertCommands;
});

describe('rate limit with slots claimed ahead', () => {
  it('a steady stream is admitted from its lease: few inserts, and remaining counts down by one per request', async () => {
    const clock = new ManualClock('2027-05-11T08:00:01Z');
    const limiter = createRateLimiter({ store, clock, leaseMs: 1_000 });
    const limit = 3_200;
    for (let index = 0; index < 1_000; index++) {
      const decision = await limiter.take('other', 'cus_steady', limit);
      expect(decision, `request ${index + 1}`).toMatchObject({ allowed: true, remaining: limit - index - 1 });
      clock.advanceMs(10);
      // The next lease is claimed behind the answers: let it land, as the time between requests would.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // One insert per lease of up to 100 slots, not one per request.
    expect(insertCommands.length).toBeLessThan(40);
    const stored = await store.rateLimitSlots.countDocuments({ _id: { $regex: '^other:cus_steady:' } });
    expect(stored).toBeGreaterThanOrEqual(1_000);
    expect(stored).toBeLessThanOrEqual(1_000 + 2 * 100);
  });

  it('two replicas leasing past the limit: never more than the limit in any 60 s, and close to it each minute', async () => {
    const clock = new ManualClock('2027-05-11T08:05:30Z');
    const replicas = [createRateLimiter({ store, clock, leaseMs: 1_000 }), createRateLimiter({ store, clock, leaseMs: 1_000 })];
    const limit = 320;
    const admittedAtMs: number[] = [];
    const startMs = clock.now().getTime();
    for (let index = 0; clock.now().getTime() < startMs + 150_000; index++) {
      const decision = await replicas[index % 2]!.take('other', 'cus_leased', limit);
      if (decision.allowed) admittedAtMs.push(clock.now().getTime());
      else expect(decision.retryAfterSeconds).toBeGreaterThan(0);
      clock.advanceMs(25);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(mostInAnyMinute(admittedAtMs)).toBeLessThanOrEqual(limit);
    // Unused leased slots count as admitted, but no lease is claimed within twice a lease of the limit.
    const lastMinute = admittedAtMs.filter((atMs) => atMs >= clock.now().getTime() - windowMs);
    expect(lastMinute.length).toBeGreaterThanOrEqual(limit - 2 * 2 * 10);
  });
});
