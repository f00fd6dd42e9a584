import SwaggerParser from '@apidevtools/swagger-parser';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { startOperationsListener } from '@mtx/shared/operations-listener';
import { principalOf } from '../src/context';
import { revokeKey } from '../src/app/customers';
import { hashKey } from '../src/domain/keys';
import { startGatewayHarness, type GatewayHarness } from './helpers';

let harness: GatewayHarness;
const writes: Array<{ customer: string; body: unknown }> = [];

beforeAll(async () => {
  harness = await startGatewayHarness({
    extend: (app) => {
      // A write route of the same shape as the product's, to exercise the shared machinery on its own.
      app.post(
        '/v1/test-echo',
        {
          schema: {
            body: Type.Object(
              {
                amount_eur_cents: Type.Integer({ minimum: 1000, maximum: 50000, 'x-error-code': 'amount_out_of_range' }),
                note: Type.Optional(Type.String({ maxLength: 10 })),
                nested: Type.Optional(Type.Object({ a: Type.Integer() }, { additionalProperties: false })),
              },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => {
          writes.push({ customer: principalOf(request).customer_id, body: request.body });
          return { ok: true };
        },
      );
      app.get('/v1/test-read', async (request) => ({ customer_id: principalOf(request).customer_id }));
      app.get('/v1/test-fail', async () => {
        throw new AppError('insufficient_balance', 'no money', { details: { needed: 1 } });
      });
      app.get('/v1/test-crash', async () => {
        throw new Error('secret internal detail');
      });
    },
  });
});

afterAll(async () => harness?.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('authentication', () => {
  it('answers 401 in the error envelope with a request id when no key is sent', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/v1/test-read' });
    expect(response.statusCode).toBe(401);
    const body = response.json();
    expect(body.error.code).toBe('unauthenticated');
    expect(body.request_id).toMatch(/^req_/);
    expect(response.headers['x-request-id']).toBe(body.request_id);
  });

  it('rejects unknown, malformed and mis-prefixed keys with 401', async () => {
    for (const authorization of [
      'Bearer sk_nope_nope_nope',
      'Basic abc',
      'Bearer',
      `Bearer xx_${'a'.repeat(40)}`,
      `Bearer rk_${harness.customer.full_key.slice(3)}`,
    ]) {
      const response = await harness.app.inject({ method: 'GET', url: '/v1/test-read', headers: { authorization } });
      expect(response.statusCode, authorization).toBe(401);
      expect(response.json().error.code).toBe('unauthenticated');
    }
  });

  it('lets both key levels read and only the full key write (403 forbidden otherwise)', async () => {
    const read = await harness.app.inject({ method: 'GET', url: '/v1/test-read', headers: bearer(harness.customer.read_key) });
    expect(read.statusCode).toBe(200);
    expect(read.json().customer_id).toBe(harness.customer.customer_id);
    const before = writes.length;
    const forbidden = await harness.app.inject({
      method: 'POST',
      url: '/v1/test-echo',
      headers: bearer(harness.customer.read_key),
      payload: { amount_eur_cents: 1000 },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('forbidden');
    expect(writes.length).toBe(before);
    const allowed = await harness.app.inject({
      method: 'POST',
      url: '/v1/test-echo',
      headers: bearer(harness.customer.full_key),
      payload: { amount_eur_cents: 1000 },
    });
    expect(allowed.statusCode).toBe(200);
    expect(writes.length).toBe(before + 1);
  });

  it('stores keys only as digests', async () => {
    const stored = await harness.connected.dependencies.store.apiKeys.find({ customer_id: harness.customer.customer_id }).toArray();
    expect(stored.length).toBe(2);
    const serialized = JSON.stringify(stored);
    expect(serialized).not.toContain(harness.customer.full_key);
    expect(serialized).not.toContain(harness.customer.read_key);
    expect(stored.map((document) => document._id).sort()).toEqual(
      [hashKey(harness.customer.full_key), hashKey(harness.customer.read_key)].sort(),
    );
  });

  it('refuses a revoked key once the cache window has passed', async () => {
    const { issueKey } = await import('../src/app/customers');
    const extra = await issueKey(harness.connected.dependencies.store, harness.customer.customer_id, 'read', harness.clock);
    expect((await harness.app.inject({ method: 'GET', url: '/v1/test-read', headers: bearer(extra.key) })).statusCode).toBe(200);
    await revokeKey(harness.connected.dependencies.store, extra.key_id, harness.clock);
    harness.clock.advanceMs(harness.config.API_KEY_CACHE_MS + 1);
    const after = await harness.app.inject({ method: 'GET', url: '/v1/test-read', headers: bearer(extra.key) });
    expect(after.statusCode).toBe(401);
  });
});

describe('validation', () => {
  const post = (payload: string | object, headers: Record<string, string> = {}) =>
    harness.app.inject({
      method: 'POST',
      url: '/v1/test-echo',
      headers: { ...bearer(harness.customer.full_key), 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  it('rejects unknown fields with 400 unknown_field naming the field, at any depth, and writes nothing', async () => {
    const before = writes.length;
    const top = await post({ amount_eur_cents: 1000, surprise: 1 });
    expect(top.statusCode).toBe(400);
    expect(top.json().error).toMatchObject({ code: 'unknown_field', param: 'surprise' });
    const nested = await post({ amount_eur_cents: 1000, nested: { a: 1, b: 2 } });
    expect(nested.statusCode).toBe(400);
    expect(nested.json().error).toMatchObject({ code: 'unknown_field', param: 'nested.b' });
    expect(writes.length).toBe(before);
  });

  it('does not coerce types in bodies and applies declared error codes', async () => {
    const before = writes.length;
    for (const payload of [
      { amount_eur_cents: '1000' },
      { amount_eur_cents: 1000.5 },
      { amount_eur_cents: true },
      { amount_eur_cents: null },
      {},
    ]) {
      const response = await post(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
    const low = await post({ amount_eur_cents: 999 });
    expect(low.json().error).toMatchObject({ code: 'amount_out_of_range', param: 'amount_eur_cents' });
    expect(writes.length).toBe(before);
  });

  it('answers 4xx, never 5xx, to broken, huge, deep, poisoned and out-of-range JSON', async () => {
    const before = writes.length;
    const cases: Array<[string, string | object, Record<string, string>?]> = [
      ['broken', '{"amount_eur_cents": '],
      ['1e309', '{"amount_eur_cents": 1e309}'],
      ['deep', `${'['.repeat(5000)}${']'.repeat(5000)}`],
      ['proto', '{"amount_eur_cents": 1000, "__proto__": {"x": 1}}'],
      ['huge', { amount_eur_cents: 1000, note: 'x'.repeat(harness.config.BODY_LIMIT_BYTES) }],
      ['array', '[1,2,3]'],
      ['wrong type', 'hello', { 'content-type': 'text/plain' }],
    ];
    for (const [label, payload, headers] of cases) {
      const response = await post(payload, headers ?? {});
      expect(response.statusCode, label).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, label).toBeLessThan(500);
      expect(response.json().error.code, label).toBeTypeOf('string');
      if (label === '1e309') expect(response.json().error.message, label).toBe('request body contains a number out of range');
      if (label === 'deep') expect(response.json().error.message, label).toMatch(/^request body is nested deeper than \d+ levels$/);
    }
    expect(writes.length).toBe(before);
  });
});

describe('errors', () => {
  it('passes typed errors through with their status, code and details', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/v1/test-fail', headers: bearer(harness.customer.read_key) });
    expect(response.statusCode).toBe(402);
    expect(response.json().error).toEqual({ code: 'insufficient_balance', message: 'no money', details: { needed: 1 } });
  });

  it('hides internal errors behind a 500 envelope without details', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/v1/test-crash', headers: bearer(harness.customer.read_key) });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('secret internal detail');
    expect(response.json().error.code).toBe('internal');
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
  });
});

describe('system routes', () => {
  it('serves a valid OpenAPI 3 document generated from the route schemas', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toMatch(/^3\./);
    await SwaggerParser.validate(structuredClone(document));
    expect(document.paths['/v1/test-echo'].post.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
  });

  it('says only "unavailable" on the API port while backends are down; each check by name is on the operations port', async () => {
    const health = await harness.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toEqual({ status: 'unavailable' });
    // Neither readiness detail nor metrics (host name, pid, command line) are routed on the API port.
    expect((await harness.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(404);
    expect((await harness.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    const operations = await startOperationsListener({ port: 0, host: '127.0.0.1', readiness: harness.connected.dependencies.readiness });
    try {
      const ready = await fetch(`http://127.0.0.1:${operations.port}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { ready: boolean; checks: Record<string, boolean> };
      expect(body.ready).toBe(false);
      expect(body.checks.store).toBe(true);
      expect(body.checks.wallet).toBe(false);
    } finally {
      await operations.close();
    }
  });
});

describe('oversized headers on a real socket', () => {
  it('answers 431 in the error envelope', async () => {
    const address = await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`${address}/v1/test-read`, {
      headers: { authorization: `Bearer ${harness.customer.read_key}`, 'x-padding': 'x'.repeat(64 * 1024) },
    });
    expect(response.status).toBe(431);
    const body = (await response.json()) as { error: { code: string }; request_id: string };
    expect(body.error.code).toBe('headers_too_large');
    expect(body.request_id).toMatch(/^req_/);
  });
});
