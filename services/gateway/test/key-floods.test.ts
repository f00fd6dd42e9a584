import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, keyShapeValid } from '../src/domain/keys';
import { startGatewayHarness, type GatewayHarness } from './helpers';

/**
 * Made-up keys cost next to nothing: a checksummed key whose checksum fails is refused before the key cache or
 * the store is touched, and an address that keeps failing is answered 429 before its key is even read.
 */
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomBody = (length: number) => Array.from(crypto.randomBytes(length), (byte) => base62[byte % 62]).join('');

describe('key checksums', () => {
  it('issues keys whose checksum holds, and refuses one changed in any character', () => {
    for (const level of ['full', 'read'] as const) {
      const key = generateKey(level);
      expect(key).toMatch(level === 'full' ? /^sk_[0-9A-Za-z]{46}$/ : /^rk_[0-9A-Za-z]{46}$/);
      expect(keyShapeValid(key)).toBe(true);
      for (let index = 3; index < key.length; index++) {
        const changed = `${key.slice(0, index)}${key[index] === 'a' ? 'b' : 'a'}${key.slice(index + 1)}`;
        expect(keyShapeValid(changed), `character ${index}`).toBe(false);
      }
    }
    // Keys issued before checksums (40 characters) are still taken to the store; any other length is not.
    expect(keyShapeValid(`sk_${randomBody(40)}`)).toBe(true);
    expect(keyShapeValid(`sk_${randomBody(45)}`)).toBe(false);
    expect(keyShapeValid(`sk_${randomBody(47)}`)).toBe(false);
  });
});

describe('a flood of made-up keys', () => {
  let harness: GatewayHarness;
  let proxied: GatewayHarness;

  beforeAll(async () => {
    harness = await startGatewayHarness({ env: { AUTH_FAILURES_PER_MINUTE: '10' } });
    proxied = await startGatewayHarness({ env: { AUTH_FAILURES_PER_MINUTE: '10', TRUSTED_PROXIES: '127.0.0.1' } });
  });

  afterAll(async () => {
    await proxied?.close();
    await harness?.close();
  });

  const get = (app: GatewayHarness, key: string, headers: Record<string, string> = {}) =>
    app.app.inject({
      method: 'GET',
      url: '/v1/accounts',
      headers: { authorization: `Bearer ${key}`, ...headers },
      remoteAddress: headers['x-test-peer'] ?? '127.0.0.1',
    });

  it('refuses checksummed keys that fail their checksum without a store lookup', async () => {
    const authenticator = harness.connected.dependencies.authenticator;
    const before = authenticator.lookups;
    for (let index = 0; index < 8; index++) {
      const response = await get(harness, `sk_${randomBody(46)}`, { 'x-test-peer': `10.0.0.${index}` });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('unauthenticated');
    }
    expect(authenticator.lookups - before).toBe(0);
    // A real key is looked up (once, then cached).
    expect((await get(harness, harness.customer.read_key)).statusCode).not.toBe(401);
    expect(authenticator.lookups - before).toBe(1);
  });

  it('answers an address past its failures 429 with Retry-After, before reading its key; other addresses are unaffected', async () => {
    const peer = '10.1.0.1';
    for (let index = 0; index < 10; index++)
      expect((await get(harness, `sk_${randomBody(46)}`, { 'x-test-peer': peer })).statusCode).toBe(401);
    const limited = await get(harness, `sk_${randomBody(46)}`, { 'x-test-peer': peer });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Even its real key waits: the address is refused before any key is read.
    expect((await get(harness, harness.customer.read_key, { 'x-test-peer': peer })).statusCode).toBe(429);
    expect((await get(harness, harness.customer.read_key, { 'x-test-peer': '10.1.0.2' })).statusCode).not.toBe(401);
    // A minute later the address may try again.
    harness.clock.advanceMs(61_000);
    expect((await get(harness, harness.customer.read_key, { 'x-test-peer': peer })).statusCode).not.toBe(429);
  });

  it('counts neither requests without a key nor loopback peers (a local tool, or a proxy not declared trusted)', async () => {
    for (let index = 0; index < 15; index++) {
      expect((await harness.app.inject({ method: 'GET', url: '/v1/accounts', remoteAddress: '10.3.0.1' })).statusCode).toBe(401);
      expect((await get(harness, `sk_${randomBody(46)}`, { 'x-test-peer': '127.0.0.1' })).statusCode).toBe(401);
    }
    expect((await get(harness, `sk_${randomBody(46)}`, { 'x-test-peer': '10.3.0.1' })).statusCode).toBe(401);
  });

  it('counts by X-Forwarded-For only behind a trusted proxy', async () => {
    // Behind the trusted proxy (127.0.0.1), each forwarded client has its own count.
    for (let index = 0; index < 10; index++)
      expect((await get(proxied, `sk_${randomBody(46)}`, { 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(401);
    expect((await get(proxied, `sk_${randomBody(46)}`, { 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(429);
    expect((await get(proxied, `sk_${randomBody(46)}`, { 'x-forwarded-for': '203.0.113.8' })).statusCode).toBe(401);
    // Without a trusted proxy the header is ignored: a client cannot shed its count by inventing addresses.
    const peer = '10.2.0.1';
    for (let index = 0; index < 10; index++)
      await get(harness, `sk_${randomBody(46)}`, { 'x-test-peer': peer, 'x-forwarded-for': `198.51.100.${index}` });
    expect((await get(harness, `sk_${randomBody(46)}`, { 'x-test-peer': peer, 'x-forwarded-for': '198.51.100.99' })).statusCode).toBe(429);
  });
});
