import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createRateLimiter } from '../src/app/rate-limiter';
import { createGatewayStore, ensureGatewayIndexes, type GatewayStore } from '../src/store/gateway-store';

/**
 * Slots claimed ahead (`leaseMs`): a steadily used bucket's requests are admitted from slots the replica already
 * holds, so their answers wait for no store write, while the limit stays exact across replicas.
 */
const windowMs = 60_000;
let mongo: MongoClient;
let store: GatewayStore;
/** Slot documents per `insert` command since the last reset. */
let insertCommands: number[] = [];

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
  mongo.on('commandStarted', (event) => {
    if (event.commandName === 'insert' && event.command.insert === 'rate_limit_slots')
      insertCommands.push((event.command.documents as unknown[]).length);
  });
  store = createGatewayStore(mongo.db(`${testDatabasePrefix('rllease')}gateway`));
  await ensureGatewayIndexes(store);
});

afterAll(async () => {
  await store?.database.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

beforeEach(() => {
  insertCommands = [];
});

function mostInAnyMinute(admittedAtMs: number[]): number {
  const sorted = [...admittedAtMs].sort((left, right) => left - right);
  let most = 0;
  for (let first = 0, last = 0; first < sorted.length; first++) {
    while (last < sorted.length && sorted[last]! < sorted[first]! + windowMs) last++;
    most = Math.max(most, last - first);
  }
  return most;
}

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
