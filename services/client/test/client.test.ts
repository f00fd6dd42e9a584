import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, issueKey } from '../../gateway/src/app/customers';
import { startGatewayHarness, type GatewayHarness } from '../../gateway/test/helpers';
import { MtxClient, type ClientOptions } from '../src/client';
import { ApiConnectionError, ApiError } from '../src/errors';
import { parseRetryAfter, type RetryEvent } from '../src/transport';

/**
 * The client against a real gateway (in-process, on the real store, listening on a socket) whose backends
 * are down: every route that reaches a backend answers 503 `unavailable` with Retry-After, which is what a
 * client must ride out. Rate limits, validation, authentication and idempotency headers are the gateway's own.
 */
const otherLimit = 5;
let harness: GatewayHarness;
let baseUrl: string;
let customerCount = 0;

beforeAll(async () => {
  harness = await startGatewayHarness({ env: { RATE_LIMIT_OTHER_PER_MINUTE: String(otherLimit) } });
  await harness.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => harness?.close());

/** A customer of its own per test, so rate-limit windows never leak between tests. */
async function newCustomer(): Promise<{ fullKey: string; readKey: string }> {
  const store = harness.connected.dependencies.store;
  const { customer_id } = await createCustomer(store, `Client test ${++customerCount}`, harness.clock);
  const full = await issueKey(store, customer_id, 'full', harness.clock);
  const read = await issueKey(store, customer_id, 'read', harness.clock);
  return { fullKey: full.key, readKey: read.key };
}

interface Recorder {
  sleeps: number[];
  retries: RetryEvent[];
  requests: Array<{ method: string; url: string; idempotencyKey: string | null }>;
  options: Partial<ClientOptions>;
}

/** Records every attempt and wait; a wait moves the gateway's clock instead of the test's time. */
function recorder(): Recorder {
  const record: Recorder = { sleeps: [], retries: [], requests: [], options: {} };
  record.options = {
    sleep: async (delayMs) => {
      record.sleeps.push(delayMs);
      harness.clock.advanceMs(delayMs);
    },
    onRetry: (event) => record.retries.push(event),
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      record.requests.push({ method: init?.method ?? 'GET', url: String(input), idempotencyKey: headers.get('idempotency-key') });
      return fetch(input, init);
    },
  };
  return record;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('typed errors', () => {
  it('carry status, code, message, param and the request id of the error envelope', async () => {
    const { fullKey, readKey } = await newCustomer();
    const client = new MtxClient({ baseUrl, apiKey: fullKey });
    const unknownField = (await failure(client.subscription.update({ cancel_at_period_end: true, surprise: 1 } as never))) as ApiError;
    expect(unknownField).toBeInstanceOf(ApiError);
    expect(unknownField).toMatchObject({ status: 400, code: 'unknown_field', param: 'surprise', attempts: 1 });
    expect(unknownField.message).toContain('surprise');
    expect(unknownField.requestId).toMatch(/^req_/);
    expect(unknownField.describe()).toContain('400 unknown_field');

    const forbidden = (await failure(
      new MtxClient({ baseUrl, apiKey: readKey }).subscription.update({ cancel_at_period_end: true }),
    )) as ApiError;
    expect(forbidden).toMatchObject({ status: 403, code: 'forbidden' });

    const unauthenticated = (await failure(new MtxClient({ baseUrl, apiKey: 'sk_not_a_real_key_at_all' }).subscription.get())) as ApiError;
    expect(unauthenticated).toMatchObject({ status: 401, code: 'unauthenticated', attempts: 1 });

    const missing = (await failure(client.transport.request({ method: 'GET', path: '/v1/no-such-thing' }))) as ApiError;
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('retries on 503', () => {
  it('retries a GET after Retry-After, a bounded number of times, then throws the 503', async () => {
    const { readKey } = await newCustomer();
    const record = recorder();
    const client = new MtxClient({ baseUrl, apiKey: readKey, maxAttempts: 3, ...record.options });
    const error = (await failure(client.subscription.get())) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: 'unavailable', attempts: 3, retryAfterSeconds: 1 });
    expect(record.requests).toHaveLength(3);
    expect(record.sleeps).toEqual([1000, 1000]);
    expect(record.retries.map((event) => event.reason)).toEqual(['status 503', 'status 503']);
  });

  it('does not repeat a write that has no Idempotency-Key', async () => {
    const { fullKey } = await newCustomer();
    const record = recorder();
    const client = new MtxClient({ baseUrl, apiKey: fullKey, ...record.options });
    const error = (await failure(client.subscription.update({ cancel_at_period_end: true }))) as ApiError;
    expect(error).toMatchObject({ status: 503, code: 'unavailable', attempts: 1 });
    expect(record.requests).toHaveLength(1);
    expect(record.sleeps).toEqual([]);
  });

  it('starts no retry that would end past the time budget', async () => {
    const { readKey } = await newCustomer();
    const record = recorder();
    const client = new MtxClient({ baseUrl, apiKey: readKey, retryBudgetMs: 500, ...record.options });
    const error = (await failure(client.subscription.get())) as ApiError;
    expect(error).toMatchObject({ status: 503, attempts: 1 });
    expect(record.sleeps).toEqual([]);
  });
});

describe('retries on 429', () => {
  it('waits the Retry-After the gateway sends, then tries again once a request has left the minute', async () => {
    const { fullKey, readKey } = await newCustomer();
    // The first request 58 s before the others, so it leaves the sliding minute after a short Retry-After.
    const exhaust = new MtxClient({ baseUrl, apiKey: readKey, maxAttempts: 1 });
    expect(await failure(exhaust.subscription.get())).toMatchObject({ status: 503 });
    harness.clock.advanceMs(58_000);
    for (let index = 1; index < otherLimit; index++) expect(await failure(exhaust.subscription.get())).toMatchObject({ status: 503 });
    const refused = (await failure(exhaust.subscription.get())) as ApiError;
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 2 });

    const record = recorder();
    const client = new MtxClient({ baseUrl, apiKey: fullKey, ...record.options });
    // A body the validator refuses: once past the limiter the answer is a 400, which is not retried.
    const error = (await failure(client.subscription.update({ cancel_at_period_end: 'yes' } as never))) as ApiError;
    expect(record.retries.map((event) => event.reason)).toEqual(['status 429']);
    expect(record.sleeps).toEqual([2000]);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', param: 'cancel_at_period_end', attempts: 2 });
  });

  it('returns the 429 at once when Retry-After is longer than the client may wait', async () => {
    const { readKey } = await newCustomer();
    const nowMs = harness.clock.now().getTime();
    harness.clock.set(nowMs - (nowMs % 60_000) + 60_000);
    const exhaust = new MtxClient({ baseUrl, apiKey: readKey, maxAttempts: 1 });
    for (let index = 0; index < otherLimit; index++) await failure(exhaust.subscription.get());
    const record = recorder();
    const client = new MtxClient({ baseUrl, apiKey: readKey, maxRetryDelayMs: 10_000, ...record.options });
    const error = (await failure(client.subscription.get())) as ApiError;
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 60, attempts: 1 });
    expect(record.sleeps).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  it('is generated once per logical call, sent on every retry of it, and new for the next call', async () => {
    const { fullKey } = await newCustomer();
    const record = recorder();
    const client = new MtxClient({ baseUrl, apiKey: fullKey, maxAttempts: 3, ...record.options });
    const batch = { orders: [{ account_id: 'acc_unknown_to_anyone', symbol: 'EURUSD', operation: 'buy', volume: 0.1 }] };
    // The execution backend is down: the gateway answers 503 and releases the key, so retrying with it is safe.
    expect(await failure(client.orders.place(batch as never))).toMatchObject({ status: 503, code: 'unavailable', attempts: 3 });
    expect(await failure(client.orders.close({ accounts: [{ account_id: 'acc_unknown_to_anyone', symbol: '*' }] } as never))).toMatchObject(
      { status: 503, attempts: 3 },
    );
    const placeKeys = record.requests.filter((request) => request.url.endsWith('/v1/orders')).map((request) => request.idempotencyKey);
    const closeKeys = record.requests
      .filter((request) => request.url.endsWith('/v1/orders/close'))
      .map((request) => request.idempotencyKey);
    expect(placeKeys).toHaveLength(3);
    expect(new Set(placeKeys).size).toBe(1);
    expect(placeKeys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(closeKeys).toHaveLength(3);
    expect(new Set(closeKeys).size).toBe(1);
    expect(closeKeys[0]).not.toBe(placeKeys[0]);
    expect(record.retries.every((event) => event.idempotencyKey !== undefined)).toBe(true);

    const chosen = new MtxClient({ baseUrl, apiKey: fullKey, maxAttempts: 1, ...record.options });
    await failure(chosen.orders.place(batch as never, { idempotencyKey: 'my-order-42' }));
    expect(record.requests.at(-1)!.idempotencyKey).toBe('my-order-42');
  });
});

describe('connection failures', () => {
  let hanging: http.Server;
  let hangingUrl: string;
  const sockets = new Set<import('node:net').Socket>();

  beforeAll(async () => {
    // Accepts requests and never answers, like a backend stuck behind a load balancer.
    hanging = http.createServer(() => undefined);
    hanging.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it('retries reads and keyed writes after a refused connection, but not a write without a key', async () => {
    const record = recorder();
    const client = new MtxClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'sk_x',
      maxAttempts: 3,
      ...record.options,
      sleep: async (delayMs) => void record.sleeps.push(delayMs),
    });
    const read = (await failure(client.wallet.get())) as ApiConnectionError;
    expect(read).toBeInstanceOf(ApiConnectionError);
    expect(read).toMatchObject({ attempts: 3, timedOut: false, method: 'GET', path: '/v1/wallet' });
    const keyed = (await failure(client.orders.place({ orders: [] } as never))) as ApiConnectionError;
    expect(keyed.attempts).toBe(3);
    const unkeyed = (await failure(
      client.wallet.createTopup({ amount_eur_cents: 1000, asset_code: 'USDT', blockchain_code: 'TRON' } as never),
    )) as ApiConnectionError;
    expect(unkeyed.attempts).toBe(1);
    expect(record.sleeps).toHaveLength(4);
    // Backoff grows and stays under its ceiling.
    for (const delayMs of record.sleeps) expect(delayMs).toBeLessThanOrEqual(30_000);
  });

  it('gives every attempt a deadline and reports the timeout', async () => {
    const client = new MtxClient({ baseUrl: hangingUrl, apiKey: 'sk_x', timeoutMs: 150, maxAttempts: 2, sleep: async () => undefined });
    const startedMs = Date.now();
    const read = (await failure(client.wallet.get())) as ApiConnectionError;
    expect(read).toMatchObject({ timedOut: true, attempts: 2 });
    const write = (await failure(
      client.wallet.createTopup({ amount_eur_cents: 1000, asset_code: 'USDT', blockchain_code: 'TRON' } as never),
    )) as ApiConnectionError;
    expect(write).toMatchObject({ timedOut: true, attempts: 1 });
    expect(Date.now() - startedMs).toBeLessThan(5_000);
  });

  it('stops at once when the caller aborts', async () => {
    const client = new MtxClient({ baseUrl: hangingUrl, apiKey: 'sk_x', timeoutMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    const error = (await failure(client.wallet.get({ signal: controller.signal }))) as Error;
    expect(error.message).toBe('caller gave up');
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(new Date(10_000 + 3_000).toUTCString(), 10_000)).toBe(3);
  });
});
