import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { connectMongo, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createGatewayStore, ensureGatewayIndexes, type GatewayStore } from '../src/store/gateway-store';

/** The limiter's window: one minute, sliding. */
export const windowMs = 60_000;

/** A gateway store of its own on the test store, and the rate-limit slot inserts seen since each test began. */
export interface RateLimitStore {
  store: GatewayStore;
  /** Documents per `insert` command into the slots collection since the current test began: the limiter's writes. */
  readonly insertCommands: number[];
}

/** Registers the hooks that open (and drop) a gateway store named after `name`, watching its slot inserts. */
export function useRateLimitStore(name: string): RateLimitStore {
  const harness = { store: undefined as unknown as GatewayStore, insertCommands: [] as number[] };
  let mongo: MongoClient | undefined;
  beforeAll(async () => {
    mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
    mongo.on('commandStarted', (event) => {
      if (event.commandName === 'insert' && event.command.insert === 'rate_limit_slots')
        harness.insertCommands.push((event.command.documents as unknown[]).length);
    });
    harness.store = createGatewayStore(mongo.db(`${testDatabasePrefix(name)}gateway`));
    await ensureGatewayIndexes(harness.store);
  });
  afterAll(async () => {
    await harness.store?.database.dropDatabase().catch(() => undefined);
    await mongo?.close();
  });
  beforeEach(() => {
    harness.insertCommands.length = 0;
  });
  return harness;
}

/** The most admissions inside any 60 s span [a, a + 60 s), over the admission times given. */
export function mostInAnyMinute(admittedAtMs: number[]): number {
  const sorted = [...admittedAtMs].sort((left, right) => left - right);
  let most = 0;
  for (let first = 0, last = 0; first < sorted.length; first++) {
    while (last < sorted.length && sorted[last]! < sorted[first]! + windowMs) last++;
    most = Math.max(most, last - first);
  }
  return most;
}
