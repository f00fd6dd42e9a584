import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { revoke } from '../src/admin/commands';
import { issueKey } from '../src/app/customers';
import { startGatewayHarness, type GatewayHarness } from './helpers';

/**
 * Two gateway replicas on one store and one NATS, each with a key cache of a minute and a clock that never
 * moves: only the revocation announcement can make them refuse a key they have cached.
 */
let replicas: GatewayHarness[];
let nats: NatsConnection;

beforeAll(async () => {
  const env = { MONGODB_DATABASE_PREFIX: testDatabasePrefix('revoke'), API_KEY_CACHE_MS: '60000' };
  replicas = [await startGatewayHarness({ env }), await startGatewayHarness({ env })];
  nats = await connect({ servers: inject('natsUrl') });
});

afterAll(async () => {
  await nats?.close();
  await replicas?.[1]?.close();
  await replicas?.[0]?.close();
});

/** 401 when the key is refused; any other status (the backends are absent here, so 503) means it was accepted. */
async function statusWith(replica: GatewayHarness, key: string): Promise<number> {
  return (await replica.app.inject({ method: 'GET', url: '/v1/accounts', headers: { authorization: `Bearer ${key}` } })).statusCode;
}

describe('key revocation across gateway replicas', () => {
  it('stops a cached key on every replica as soon as the revocation is announced, and only that key', async () => {
    const store = replicas[0]!.connected.dependencies.store;
    const customerId = replicas[0]!.customer.customer_id;
    const doomed = await issueKey(store, customerId, 'full');
    const kept = await issueKey(store, customerId, 'read');
    for (const replica of replicas) {
      expect(await statusWith(replica, doomed.key)).not.toBe(401);
      expect(await statusWith(replica, kept.key)).not.toBe(401);
    }

    const startedMs = Date.now();
    const revoked = await revoke(store, doomed.key_id, nats);
    expect(revoked).toMatchObject({ key_id: doomed.key_id, customer_id: customerId, announced: true });
    const refusedAfterMs: number[] = [];
    for (const replica of replicas) {
      // Bounded poll: the cache would hold the key for a minute, and the clocks never move.
      for (let attempt = 0; attempt < 200 && (await statusWith(replica, doomed.key)) !== 401; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      refusedAfterMs.push(Date.now() - startedMs);
      expect(await statusWith(replica, doomed.key)).toBe(401);
      expect(await statusWith(replica, kept.key)).not.toBe(401);
    }
    // A revoked key stops working within 100 ms on every replica; measured here on a shared machine with a wider margin.
    expect(Math.max(...refusedAfterMs)).toBeLessThan(1_000);
  });

  it('stays revoked for a replica that had not cached the key, and the announcement of an unknown key is harmless', async () => {
    const store = replicas[0]!.connected.dependencies.store;
    const key = await issueKey(store, replicas[0]!.customer.customer_id, 'full');
    expect(await statusWith(replicas[0]!, key.key)).not.toBe(401);
    await revoke(store, key.key_id, nats);
    expect(await statusWith(replicas[1]!, key.key)).toBe(401);
    nats.publish('events.gateway.key_revoked', new TextEncoder().encode('{"key_id":"key_unknown"}'));
    nats.publish('events.gateway.key_revoked', new TextEncoder().encode('not json'));
    await nats.flush();
    expect(await statusWith(replicas[1]!, replicas[1]!.customer.full_key)).not.toBe(401);
  });
});
