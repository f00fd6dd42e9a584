import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './helpers';

/**
 * HTTP read strictly: bodies we cannot read as sent (encoded, another charset, a key given twice) are refused,
 * paths are matched exactly, integer ids are plain decimal, text bound for a trading terminal has no control
 * characters, and every error names the field the client sent, in one format. The backends are absent here, so a
 * request that passed every check answers 503; a refused write leaves no idempotency record behind.
 */
let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});

afterAll(async () => {
  await harness?.close();
});

const leg = { account_id: 'acc_x', symbol: 'EURUSD', operation: 'buy', volume: 0.1 };

function post(url: string, payload: string | Buffer, headers: Record<string, string> = {}) {
  return harness.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${harness.customer.full_key}`, 'content-type': 'application/json', ...headers },
    payload,
  });
}

function get(url: string) {
  return harness.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${harness.customer.full_key}` } });
}

let keyCounter = 0;
/** POSTs with a fresh Idempotency-Key and asserts the refusal left no record of the key. */
async function refusedWrite(url: string, payload: string | Buffer, headers: Record<string, string> = {}) {
  const key = `strict-${Date.now()}-${keyCounter++}`;
  const response = await post(url, payload, { 'idempotency-key': key, ...headers });
  expect(response.statusCode, `${url} ${String(payload).slice(0, 80)}`).toBeGreaterThanOrEqual(400);
  expect(response.statusCode).toBeLessThan(500);
  const records = await harness.connected.dependencies.store.idempotency.countDocuments({});
  const stored = await harness.connected.dependencies.store.idempotency.find({}, { projection: { _id: 1 } }).toArray();
  expect(
    stored.filter((record) => String(record._id).includes(key)),
    `records: ${records}`,
  ).toEqual([]);
  return response;
}

describe('request bodies', () => {
  it('refuses a body with a Content-Encoding other than identity (415), and reads identity', async () => {
    const body = JSON.stringify({ orders: [leg] });
    for (const encoding of ['gzip', 'deflate', 'br', 'gzip, identity']) {
      const payload = encoding.startsWith('gzip') ? gzipSync(body) : Buffer.from(body);
      const response = await refusedWrite('/v1/orders', payload, { 'content-encoding': encoding });
      expect(response.statusCode, encoding).toBe(415);
      expect(response.json().error, encoding).toMatchObject({ code: 'unsupported_media_type', param: 'Content-Encoding' });
    }
    // identity is no encoding at all: validation passes and the absent execution service answers.
    const identity = await post('/v1/orders/close', JSON.stringify({ symbol: 'EURUSD', accounts: [{ account_id: 'acc_x' }] }), {
      'content-encoding': 'identity',
    });
    expect(identity.statusCode).toBe(503);
  });

  it('refuses JSON in a charset other than UTF-8 (415), and reads utf-8 in any spelling', async () => {
    const body = JSON.stringify({ orders: [leg] });
    for (const type of ['application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json;charset="iso-8859-1"']) {
      const response = await refusedWrite('/v1/orders', body, { 'content-type': type });
      expect(response.statusCode, type).toBe(415);
      expect(response.json().error, type).toMatchObject({ code: 'unsupported_media_type', param: 'Content-Type' });
    }
    for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json']) {
      const response = await post('/v1/orders/close', JSON.stringify({ symbol: 'EURUSD', accounts: [{ account_id: 'acc_x' }] }), {
        'content-type': type,
      });
      expect(response.statusCode, type).toBe(503);
    }
  });

  it('refuses a JSON object that gives a key twice (400), naming where', async () => {
    const cases: Array<[string, string]> = [
      [`{"orders":[${JSON.stringify(leg)}],"orders":[${JSON.stringify(leg)}]}`, 'orders'],
      [`{"defaults":{"volume":1,"volume":0.1},"orders":[${JSON.stringify(leg)}]}`, 'defaults.volume'],
      [`{"orders":[${JSON.stringify(leg)},{"account_id":"a","symbol":"X","symbol":"Y","operation":"buy","volume":1}]}`, 'orders[1].symbol'],
      // The same key written with an escape is the same key.
      [`{"orders":[{"account_id":"a","symbol":"X","\\u0073ymbol":"Y","operation":"buy","volume":1}]}`, 'orders[0].symbol'],
    ];
    for (const [payload, param] of cases) {
      const response = await refusedWrite('/v1/orders', payload);
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().error, payload).toMatchObject({ code: 'invalid_request', param });
      expect(response.json().error.message, payload).toContain('more than once');
    }
    // Equal keys in different objects are not duplicates, and a key inside a string value is text.
    const distinct = await post(
      '/v1/orders/close',
      '{"defaults":{"symbol":"EURUSD"},"accounts":[{"account_id":"a"},{"account_id":"b\\",\\"account_id"}]}',
    );
    expect(distinct.statusCode).toBe(503);
  });
});

describe('paths', () => {
  it('answers 404 for a known route written with a trailing slash', async () => {
    for (const [method, url] of [
      ['GET', '/v1/wallet/'],
      ['GET', '/v1/wallet/topup/12/'],
      ['POST', '/v1/orders/'],
      ['GET', '/v1/orders/'],
    ] as const) {
      const response = await harness.app.inject({ method, url, headers: { authorization: `Bearer ${harness.customer.full_key}` } });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json().error.code).toBe('not_found');
      expect(response.headers.allow).toBeUndefined();
    }
    // A path that exists under another method is still 405 with Allow.
    const wrongMethod = await harness.app.inject({ method: 'DELETE', url: '/v1/wallet', headers: {} });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET, HEAD');
  });

  it('reads integer path ids as plain decimal only, up to 2^53-1', async () => {
    for (const written of ['0x10', '1e3', '%2B1', '010', '1.0', '16abc', '%2016', '-1', '0', '9007199254740992']) {
      const response = await get(`/v1/wallet/topup/${written}`);
      expect(response.statusCode, written).toBe(400);
      expect(response.json().error, written).toMatchObject({ code: 'invalid_request', param: 'id' });
    }
    for (const written of ['16', '9007199254740991']) expect((await get(`/v1/wallet/topup/${written}`)).statusCode, written).toBe(503);
  });
});

describe('text bound for a trading terminal', () => {
  it('refuses control characters in symbol, comment, operation, expiration and the login fields (400)', async () => {
    const withControl = (field: string, character: string) => ({ orders: [{ ...leg, [field]: `EUR${character}USD` }] });
    for (const character of ['\u0000', '\n', '\u001b', '\u007f']) {
      for (const field of ['symbol', 'comment', 'operation', 'expiration']) {
        const response = await refusedWrite('/v1/orders', JSON.stringify(withControl(field, character)));
        expect(response.statusCode, field).toBe(400);
        expect(response.json().error, field).toMatchObject({ code: 'invalid_request', param: `orders[0].${field}` });
        expect(response.json().error.message).toContain('control characters');
      }
    }
    const inDefaults = await refusedWrite('/v1/orders', JSON.stringify({ defaults: { comment: 'a\u0007b' }, orders: [leg] }));
    expect(inDefaults.json().error).toMatchObject({ code: 'invalid_request', param: 'defaults.comment' });
    const close = await refusedWrite('/v1/orders/close', JSON.stringify({ symbol: 'EUR\u0000', accounts: [{ account_id: 'a' }] }));
    expect(close.json().error).toMatchObject({ code: 'invalid_request', param: 'symbol' });
    for (const field of ['server', 'login', 'password']) {
      const account = { platform: 'mt5', server: 'Beta-Server', login: '5001', password: 'secret1', [field]: 'x\u0000y' };
      const response = await post('/v1/accounts', JSON.stringify(account));
      expect(response.statusCode, field).toBe(400);
      expect(response.json().error, field).toMatchObject({ code: 'invalid_request', param: field });
    }
    // Printable text, tabs excluded, still passes: non-ASCII letters are not control characters.
    expect((await post('/v1/orders/close', JSON.stringify({ symbol: 'ÉURUSD', accounts: [{ account_id: 'a' }] }))).statusCode).toBe(503);
  });
});

describe('error params', () => {
  it('names fields in one format, orders[0].volume, as the client sent them', async () => {
    const longSymbol = await refusedWrite('/v1/orders', JSON.stringify({ orders: [leg, { ...leg, symbol: 'S'.repeat(65) }] }));
    expect(longSymbol.json().error).toMatchObject({ code: 'invalid_request', param: 'orders[1].symbol' });
    expect(longSymbol.json().error.message).toMatch(/^orders\[1\]\.symbol /);
    const unknown = await refusedWrite('/v1/orders', JSON.stringify({ orders: [{ ...leg, colour: 'red' }] }));
    expect(unknown.json().error).toMatchObject({ code: 'unknown_field', param: 'orders[0].colour' });
    const missing = await refusedWrite('/v1/orders/close', JSON.stringify({ accounts: [{ symbol: 'X' }] }));
    expect(missing.json().error).toMatchObject({ param: 'accounts[0].account_id' });
    const tickets = await refusedWrite('/v1/orders/close', JSON.stringify({ accounts: [{ account_id: 'a', tickets: [1, 0] }] }));
    expect(tickets.json().error).toMatchObject({ param: 'accounts[0].tickets[1]' });
  });

  it('reports a zero volume in defaults as defaults.volume, not as the leg that inherits it', async () => {
    const response = await refusedWrite('/v1/orders', JSON.stringify({ defaults: { volume: 0 }, orders: [{ ...leg, volume: undefined }] }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_request', param: 'defaults.volume' });
    expect(response.json().error.message).toContain('greater than 0');
    const inLeg = await refusedWrite('/v1/orders', JSON.stringify({ orders: [{ ...leg, volume: 0 }] }));
    expect(inLeg.json().error).toMatchObject({ param: 'orders[0].volume' });
    const close = await refusedWrite(
      '/v1/orders/close',
      JSON.stringify({ defaults: { volume: 0 }, symbol: 'X', accounts: [{ account_id: 'a' }] }),
    );
    expect(close.json().error).toMatchObject({ param: 'defaults.volume' });
  });

  it('words an unknown query parameter the same on every route', async () => {
    const undeclared = await get('/v1/wallet?currency=usd');
    const declared = await get('/v1/wallet/assets?amount_eur_cents=1000&currency=usd');
    for (const response of [undeclared, declared]) {
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toEqual({ code: 'unknown_field', message: 'unknown query parameter `currency`', param: 'currency' });
    }
  });
});
