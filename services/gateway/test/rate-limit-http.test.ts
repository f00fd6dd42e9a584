import { createLogger } from '@mtx/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway } from '../src/app';
import type { GatewayApp } from '../src/context';
import { connectGatewayDependencies, type ConnectedGateway } from '../src/dependencies';
import { startGatewayHarness, type GatewayHarness } from './helpers';

/**
 * The execution limit over HTTP on two gateway replicas that share the store (and, for the test, one clock):
 * 60 requests in any 60 s for POST /v1/orders and POST /v1/orders/close together, with RateLimit-* headers and
 * Retry-After that say exactly when the next request passes. The bodies are invalid, so each counted request is
 * answered 400 after the limiter and nothing reaches a backend.
 */
let harness: GatewayHarness;
let second: { app: GatewayApp; connected: ConnectedGateway };

beforeAll(async () => {
  harness = await startGatewayHarness();
  const connected = await connectGatewayDependencies(harness.config, {
    clock: harness.clock,
    logger: createLogger('gateway', { level: 'silent' }),
  });
  const app = await buildGateway(connected.dependencies);
  await app.ready();
  second = { app, connected };
});

afterAll(async () => {
  await second?.app.close();
  await second?.connected.close();
  await harness?.close();
});

describe('execution rate limit across two replicas', () => {
  it('120 calls straddling a minute edge: 60 pass in any 60 s, and the headers say when the next one will', async () => {
    const replicas = [harness.app, second.app];
    const nowMs = harness.clock.now().getTime();
    // 2.7 s across the edge: 1.3 s before the minute turns to 1.4 s after it, a call every 22.5 ms.
    harness.clock.set(nowMs - (nowMs % 60_000) + 58_700);
    const startMs = harness.clock.now().getTime();
    const passedAtMs: number[] = [];
    let lastRefusal: { atMs: number; retryAfter: number; reset: number } | undefined;
    for (let index = 0; index < 120; index++) {
      harness.clock.set(startMs + Math.floor(index * 22.5));
      const response = await replicas[index % 2]!.inject({
        method: 'POST',
        url: index % 3 === 0 ? '/v1/orders/close' : '/v1/orders',
        headers: { authorization: `Bearer ${harness.customer.full_key}`, 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(response.headers['ratelimit-limit']).toBe('60');
      if (response.statusCode === 429) {
        expect(response.json().error.code).toBe('rate_limited');
        expect(response.headers['ratelimit-remaining']).toBe('0');
        lastRefusal = {
          atMs: harness.clock.now().getTime(),
          retryAfter: Number(response.headers['retry-after']),
          reset: Number(response.headers['ratelimit-reset']),
        };
        continue;
      }
      expect(response.statusCode).toBe(400);
      passedAtMs.push(harness.clock.now().getTime());
      // Remaining counts down across both replicas: they share one order of requests.
      expect(Number(response.headers['ratelimit-remaining'])).toBe(60 - passedAtMs.length);
    }
    expect(passedAtMs).toHaveLength(60);
    expect(Math.max(...passedAtMs) - Math.min(...passedAtMs)).toBeLessThan(60_000);
    // The first call leaves the minute at startMs + 60 s: Retry-After and RateLimit-Reset round that up.
    const expected = Math.ceil((startMs + 60_000 - lastRefusal!.atMs) / 1000);
    expect(lastRefusal).toMatchObject({ retryAfter: expected, reset: expected });
    // A second before Retry-After the next call is still refused; at Retry-After it passes.
    harness.clock.set(lastRefusal!.atMs + (expected - 1) * 1000);
    const early = await second.app.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: { authorization: `Bearer ${harness.customer.full_key}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(early.statusCode).toBe(429);
    harness.clock.set(lastRefusal!.atMs + expected * 1000);
    const onTime = await harness.app.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: { authorization: `Bearer ${harness.customer.full_key}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(onTime.statusCode).toBe(400);
    // Remaining: the limit less the calls of the last 60 s, this one included (the earliest have left by now).
    const onTimeMs = harness.clock.now().getTime();
    const counted = passedAtMs.filter((atMs) => atMs + 60_000 > onTimeMs).length + 1;
    expect(Number(onTime.headers['ratelimit-remaining'])).toBe(60 - counted);
    expect(counted).toBeLessThan(60);
  });
});
