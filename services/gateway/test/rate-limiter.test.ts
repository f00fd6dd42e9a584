import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { isStoreUnavailable } from '@mtx/shared/grpc';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { startTcpProxy, testDatabasePrefix } from '@mtx/shared/testing';
import { BlockLayout, createRateLimiter, rateLimitBlockSlots, rateLimitWaitersMax, type RateLimitDecision } from '../src/app/rate-limiter';
import { createGatewayStore, ensureGatewayIndexes, type GatewayStore } from '../src/store/gateway-store';

const windowMs = 60_000;
let mongo: MongoClient;
let store: GatewayStore;
/** Documents per `insert` command this client sent since the last reset: the store writes the limiter made. */
let insertCommands: number[] = [];

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
  mongo.on('commandStarted', (event) => {
    if (event.commandName === 'insert' && event.command.insert === 'rate_limit_slots')
      insertCommands.push((event.command.documents as unknown[]).length);
  });
  store = createGatewayStore(mongo.db(`${testDatabasePrefix('rlbatch')}gateway`));
  await ensureGatewayIndexes(store);
});

afterAll(async () => {
  await store?.database.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

beforeEach(() => {
  insertCommands = [];
});

function prefixOf(clock: ManualClock, bucket: string, customerId: string): string {
  return `${bucket}:${customerId}:${Math.floor(clock.now().getTime() / windowMs)}`;
}

/** Block numbers stored under `prefix` (every replica's), ascending. */
async function storedBlocks(prefix: string): Promise<number[]> {
  const documents = await store.rateLimitSlots.find({ _id: { $regex: `^${prefix}:b` } }, { projection: { _id: 1 } }).toArray();
  return documents.map((document) => Number(document._id.slice(prefix.length + 2))).sort((left, right) => left - right);
}

/** The slots of the blocks stored under `prefix`, by the limit's block layout. */
async function storedSlots(prefix: string, limit: number): Promise<number[]> {
  const layout = new BlockLayout(limit);
  return (await storedBlocks(prefix)).flatMap((block) => {
    const range = layout.slotsOf(block);
    return Array.from({ length: range.last - range.next + 1 }, (_, offset) => range.next + offset);
  });
}

function handedOutSlots(decisions: RateLimitDecision[], limit: number): number[] {
  return decisions.filter((decision) => decision.allowed).map((decision) => limit - decision.remaining);
}

describe('rate limiter reserving slots in blocks', () => {
  it('one replica, limit 60, 200 concurrent takes: exactly 60 admitted with remaining 59..0 once each, then the next window admits', async () => {
    const clock = new ManualClock('2027-05-10T12:00:05Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 60;
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.take('execution', 'cus_one', limit)));
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted.length).toBe(limit);
    expect(admitted.map((decision) => decision.remaining).sort((left, right) => left - right)).toEqual(
      Array.from({ length: limit }, (_, index) => index),
    );
    const refused = decisions.filter((decision) => !decision.allowed);
    expect(refused.length).toBe(140);
    expect(refused.every((decision) => decision.remaining === 0 && decision.resetSeconds === 55)).toBe(true);
    // Alone, the replica strands nothing: every slot of the stored blocks was handed out.
    expect(await storedSlots(prefixOf(clock, 'execution', 'cus_one'), limit)).toEqual(
      handedOutSlots(decisions, limit).sort((left, right) => left - right),
    );
    // The first take claims a block alone; the burst queued behind it asks for all the other blocks at once.
    expect(insertCommands).toEqual([1, new BlockLayout(limit).blocksMax - 1]);

    clock.advanceMs(windowMs);
    expect(await limiter.take('execution', 'cus_one', limit)).toMatchObject({ allowed: true, remaining: limit - 1 });
  });

  it('two replicas, limit 600, 1,500 interleaved concurrent takes: admitted <= 600 and >= 600 - 2 replicas x cap 30, no slot handed out twice', async () => {
    const clock = new ManualClock('2027-05-10T12:01:05Z');
    const replicas = [createRateLimiter({ store, clock }), createRateLimiter({ store, clock })];
    const limit = 600;
    const cap = Math.floor(limit / 20);
    const decisionsByReplica: RateLimitDecision[][] = [[], []];
    await Promise.all(
      Array.from({ length: 1_500 }, async (_, index) => {
        const replica = index % 2;
        decisionsByReplica[replica]!.push(await replicas[replica]!.take('other', 'cus_two', limit));
      }),
    );
    const handedOut = decisionsByReplica.flatMap((decisions) => handedOutSlots(decisions, limit));
    const stranded = replicas.flatMap((replica) => replica.reservedSlots('other', 'cus_two'));
    console.log(
      `two replicas: admitted ${handedOut.length} of ${limit} (${handedOutSlots(decisionsByReplica[0]!, limit).length} + ${handedOutSlots(decisionsByReplica[1]!, limit).length}), stranded ${stranded.length}, insert commands ${insertCommands.length}`,
    );
    expect(handedOut.length).toBeLessThanOrEqual(limit);
    expect(handedOut.length).toBeGreaterThanOrEqual(limit - replicas.length * cap);
    expect(new Set(handedOut).size).toBe(handedOut.length);
    expect(handedOut.every((slot) => slot >= 1 && slot <= limit)).toBe(true);
    // Every stored slot was either handed out or is still held unused by the replica that inserted it.
    const accounted = [...handedOut, ...stranded];
    expect(new Set(accounted).size).toBe(accounted.length);
    expect(await storedSlots(prefixOf(clock, 'other', 'cus_two'), limit)).toEqual(accounted.sort((left, right) => left - right));
  });

  it('two replicas taking turns in waves of concurrent requests both admit, within the same bounds, never the same slot', async () => {
    const clock = new ManualClock('2027-05-10T12:07:05Z');
    const replicas = [createRateLimiter({ store, clock }), createRateLimiter({ store, clock })];
    const limit = 600;
    const cap = Math.floor(limit / 20);
    const decisionsByReplica: RateLimitDecision[][] = [[], []];
    for (let wave = 0; wave < 15; wave++) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, index) => {
          const replica = index % 2;
          decisionsByReplica[replica]!.push(await replicas[replica]!.take('other', 'cus_waves', limit));
        }),
      );
    }
    const admittedByReplica = decisionsByReplica.map((decisions) => handedOutSlots(decisions, limit));
    const handedOut = admittedByReplica.flat();
    const stranded = replicas.flatMap((replica) => replica.reservedSlots('other', 'cus_waves'));
    console.log(
      `two replicas in waves: admitted ${handedOut.length} of ${limit} (${admittedByReplica[0]!.length} + ${admittedByReplica[1]!.length}), stranded ${stranded.length}, insert commands ${insertCommands.length}`,
    );
    expect(admittedByReplica.every((slots) => slots.length > 0)).toBe(true);
    expect(handedOut.length).toBeLessThanOrEqual(limit);
    expect(handedOut.length).toBeGreaterThanOrEqual(limit - replicas.length * cap);
    const accounted = [...handedOut, ...stranded];
    expect(new Set(accounted).size).toBe(accounted.length);
    expect(await storedSlots(prefixOf(clock, 'other', 'cus_waves'), limit)).toEqual(accounted.sort((left, right) => left - right));
  });

  it('a sequential burst of 2,000 takes with limit 1,000,000 costs one insert (a block of 50,000 slots)', async () => {
    const clock = new ManualClock('2027-05-10T12:02:05Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 1_000_000;
    const remainings: number[] = [];
    for (let index = 0; index < 2_000; index++) {
      const decision = await limiter.take('other', 'cus_burst', limit);
      expect(decision.allowed).toBe(true);
      remainings.push(decision.remaining);
    }
    expect(insertCommands).toEqual([1]);
    expect(remainings).toEqual(Array.from({ length: 2_000 }, (_, index) => limit - 1 - index));
    expect(await storedBlocks(prefixOf(clock, 'other', 'cus_burst'))).toEqual([1]);
    expect(limiter.reservedSlots('other', 'cus_burst').length).toBe(rateLimitBlockSlots(limit) - 2_000);
  });

  it('past the queue bound, requests claim blocks of their own and are still counted exactly', async () => {
    const clock = new ManualClock('2027-05-10T12:08:05Z');
    const limiter = createRateLimiter({ store, clock });
    // Blocks of one slot, so each overflowing request needs an insert of its own.
    const limit = 19;
    const requests = rateLimitWaitersMax + 76;
    const decisions = await Promise.all(Array.from({ length: requests }, () => limiter.take('other', 'cus_flood', limit)));
    const slots = handedOutSlots(decisions, limit);
    expect(slots.length).toBe(limit);
    expect(new Set(slots).size).toBe(limit);
    expect(decisions.filter((decision) => !decision.allowed).length).toBe(requests - limit);
    expect(await storedSlots(prefixOf(clock, 'other', 'cus_flood'), limit)).toEqual(slots.sort((left, right) => left - right));
    expect(limiter.reservedSlots('other', 'cus_flood')).toEqual([]);
  });

  it('past the queue bound with a high limit, the overflow takes slots of the blocks already held', async () => {
    const clock = new ManualClock('2027-05-10T12:09:05Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 1_000_000;
    const requests = rateLimitWaitersMax + 76;
    const decisions = await Promise.all(Array.from({ length: requests }, () => limiter.take('other', 'cus_flood_high', limit)));
    const slots = handedOutSlots(decisions, limit);
    expect(slots.length).toBe(requests);
    expect(new Set(slots).size).toBe(requests);
    const accounted = [...slots, ...limiter.reservedSlots('other', 'cus_flood_high')].sort((left, right) => left - right);
    expect(await storedSlots(prefixOf(clock, 'other', 'cus_flood_high'), limit)).toEqual(accounted);
    expect(insertCommands.length).toBeLessThanOrEqual(2);
  });

  it('a low-rate customer (one take per 2 s) costs one insert per block, and holds at most one block unused', async () => {
    const clock = new ManualClock('2027-05-10T12:03:00Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 200;
    const blockSlots = rateLimitBlockSlots(limit);
    for (let index = 0; index < 25; index++) {
      expect(await limiter.take('other', 'cus_slow', limit)).toMatchObject({ allowed: true, remaining: limit - 1 - index });
      expect(limiter.reservedSlots('other', 'cus_slow').length).toBeLessThan(blockSlots);
      clock.advanceMs(2_000);
    }
    expect(insertCommands).toEqual(Array.from({ length: Math.ceil(25 / blockSlots) }, () => 1));
    clock.advanceMs(-2_000);
    expect((await storedSlots(prefixOf(clock, 'other', 'cus_slow'), limit)).length).toBe(Math.ceil(25 / blockSlots) * blockSlots);
  });

  it('keeps its block, skips a block another replica took, and carries on after it', async () => {
    const clock = new ManualClock('2027-05-10T12:05:05Z');
    const limiter = createRateLimiter({ store, clock });
    const limit = 1_000;
    const blockSlots = rateLimitBlockSlots(limit);
    const prefix = prefixOf(clock, 'other', 'cus_split');
    const first = [
      await limiter.take('other', 'cus_split', limit),
      await limiter.take('other', 'cus_split', limit),
      await limiter.take('other', 'cus_split', limit),
    ];
    expect(first.map((decision) => limit - decision.remaining)).toEqual([1, 2, 3]);
    // This replica holds block 1; another replica takes block 2 first.
    await store.rateLimitSlots.insertOne({ _id: `${prefix}:b2`, window: Math.floor(clock.now().getTime() / windowMs) });
    const later: RateLimitDecision[] = [];
    for (let index = 0; index < blockSlots + 10; index++) later.push(await limiter.take('other', 'cus_split', limit));
    const slots = handedOutSlots(later, limit);
    expect(slots.length).toBe(blockSlots + 10);
    expect(slots.slice(0, blockSlots - 3)).toEqual(Array.from({ length: blockSlots - 3 }, (_, index) => 4 + index));
    // The rest of block 1 was used, block 2 skipped, and block 3 taken next.
    expect(slots[blockSlots - 3]).toBe(2 * blockSlots + 1);
    expect(slots.every((slot) => slot <= blockSlots || slot > 2 * blockSlots)).toBe(true);
    expect(await storedBlocks(prefix)).toEqual([1, 2, 3]);
  });

  it('lays out blocks of limit/20 and then single slots for the last two blocks’ worth, covering 1..limit once', () => {
    for (const limit of [1, 19, 20, 40, 60, 200, 600, 1_001]) {
      const layout = new BlockLayout(limit);
      const slots = Array.from({ length: layout.blocksMax }, (_, index) => layout.slotsOf(index + 1)).flatMap((range) =>
        Array.from({ length: range.last - range.next + 1 }, (_, offset) => range.next + offset),
      );
      expect(slots, `limit ${limit}`).toEqual(Array.from({ length: limit }, (_, index) => index + 1));
      const tail = Array.from({ length: layout.blocksMax - layout.fullBlocks }, (_, index) =>
        layout.slotsOf(layout.fullBlocks + index + 1),
      );
      expect(tail.every((range) => range.next === range.last)).toBe(true);
      expect(limit - layout.fullBlocks * layout.blockSlots).toBeGreaterThanOrEqual(Math.min(limit, 2 * rateLimitBlockSlots(limit)));
    }
    const sixty = new BlockLayout(60);
    expect([sixty.blockSlots, sixty.fullBlocks, sixty.blocksMax]).toEqual([3, 18, 24]);
    expect(sixty.blocksFor(1, 7)).toBe(2);
    expect(sixty.blocksFor(1, 2)).toBe(1);
    expect(sixty.blocksFor(18, 5)).toBe(3);
    expect(sixty.blocksFor(24, 5)).toBe(1);
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
      // Blocks of one slot, so every take needs the store.
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
      // A customer whose replica holds a block is admitted from it even while the store is out.
      const heldLimit = 600;
      expect((await limiter.take('other', 'cus_outage_held', heldLimit)).allowed).toBe(true);
      await proxy.stop();
      const fromBlock = await Promise.all(Array.from({ length: 10 }, () => limiter.take('other', 'cus_outage_held', heldLimit)));
      expect(fromBlock.map((decision) => decision.remaining)).toEqual(Array.from({ length: 10 }, (_, index) => heldLimit - 2 - index));
    } finally {
      await proxy.stop();
      await outageClient.close();
    }
  });
});

/** A TCP relay to the store that can be cut (every connection dropped, port closed) and restored on the same port. */
