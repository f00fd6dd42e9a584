import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHttpStatus } from '@mtx/shared/errors';
import { startGatewayHarness, type GatewayHarness } from './helpers';

/**
 * Every non-2xx answer, from whatever layer raises it (router, content-type parser, body limit, schema, the
 * 404 and 405 handlers, Node's HTTP parser), is the one error envelope, with a documented code whose status is
 * the answer's status. Walked over every route of the OpenAPI document.
 */
let harness: GatewayHarness;
let routes: Array<{ path: string; methods: string[] }>;
let document: {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }>; responses: Record<string, unknown> }
    >
  >;
};

const allMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

beforeAll(async () => {
  harness = await startGatewayHarness({ env: { BODY_LIMIT_BYTES: '4096' } });
  document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json() as typeof document;
  routes = Object.entries(document.paths).map(([path, operations]) => ({
    path,
    methods: Object.keys(operations).map((method) => method.toUpperCase()),
  }));
});

afterAll(async () => {
  await harness?.close();
});

/** A concrete URL for a documented path, each parameter replaced by `value`. */
const urlOf = (path: string, value = 'x1') => path.replace(/\{[^}]+\}/g, value);

function expectEnvelope(
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
  what: string,
): { code: string; message: string } {
  let body: { error?: { code?: string; message?: string }; request_id?: string };
  try {
    body = JSON.parse(response.body);
  } catch {
    throw new Error(`${what}: answer ${response.statusCode} is not JSON: ${response.body.slice(0, 200)}`);
  }
  expect(body.error?.code, `${what}: ${response.body}`).toBeTypeOf('string');
  expect(body.error?.message, what).toBeTypeOf('string');
  expect(body.request_id, what).toMatch(/^req_/);
  expect(errorHttpStatus[body.error!.code as keyof typeof errorHttpStatus], `${what}: code ${body.error!.code}`).toBe(response.statusCode);
  return body.error as { code: string; message: string };
}

const auth = () => ({ authorization: `Bearer ${harness.customer.full_key}` });

describe('one error envelope on every route', () => {
  it('answers a documented path under a method it does not have with 405 and the methods it has in Allow', async () => {
    expect(routes.length).toBeGreaterThan(10);
    // A concrete URL may match several documented paths (/v1/servers/plans is also /v1/servers/{id}).
    const patternOf = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const route of routes) {
      const url = urlOf(route.path);
      // The path's resource is the most specific documented path that matches it (static segments beat parameters).
      const matching = routes.filter((other) => patternOf(other.path).test(url));
      const staticSegments = (path: string) => path.split('/').filter((segment) => segment && !segment.startsWith('{')).length;
      const mostSpecific = Math.max(...matching.map((other) => staticSegments(other.path)));
      const declared = new Set(matching.filter((other) => staticSegments(other.path) === mostSpecific).flatMap((other) => other.methods));
      const routable = new Set(matching.flatMap((other) => other.methods));
      for (const method of allMethods.filter((name) => !routable.has(name) && !(name === 'HEAD' && declared.has('GET')))) {
        const response = await harness.app.inject({
          method: method as 'GET',
          url,
          headers: { ...auth(), 'content-type': 'text/plain' },
          payload: method === 'GET' || method === 'OPTIONS' || method === 'TRACE' ? undefined : 'x',
        });
        const error = expectEnvelope(response, `${method} ${route.path}`);
        expect(response.statusCode, `${method} ${route.path}`).toBe(405);
        expect(error.code).toBe('method_not_allowed');
        const allow = String(response.headers.allow).split(', ');
        expect(allow.filter((name) => name !== 'HEAD').sort(), `${route.path} Allow`).toEqual([...declared].sort());
      }
    }
  });

  it("refuses a path parameter past its schema as 400 and past the router's limit as 414, both in the envelope", async () => {
    const withParameter = routes.filter((route) => route.path.includes('{'));
    expect(withParameter.length).toBeGreaterThanOrEqual(4);
    for (const route of withParameter) {
      const method = route.methods[0]!;
      const long = await harness.app.inject({ method: method as 'GET', url: urlOf(route.path, 'a'.repeat(300)), headers: auth() });
      expectEnvelope(long, `${method} ${route.path} with a 300-character id`);
      expect([400, 404], `${method} ${route.path}`).toContain(long.statusCode);
      const tooLong = await harness.app.inject({ method: method as 'GET', url: urlOf(route.path, 'a'.repeat(2_001)), headers: auth() });
      expect(expectEnvelope(tooLong, `${method} ${route.path} with a 2,001-character id`).code).toBe('uri_too_long');
      expect(Object.keys(document.paths[route.path]![method.toLowerCase()]!.responses), `${method} ${route.path}`).toContain('414');
      const malformed = await harness.app.inject({ method: method as 'GET', url: urlOf(route.path, '%E0%A4%A'), headers: auth() });
      expect(expectEnvelope(malformed, `${method} ${route.path} with a malformed escape`).code).toBe('invalid_request');
    }
  });

  it('answers a body of the wrong type 415 and one past the limit 413 on every route that takes a body', async () => {
    const withBody = routes.flatMap((route) =>
      route.methods.filter((method) => method === 'POST' || method === 'PATCH' || method === 'PUT').map((method) => ({ ...route, method })),
    );
    expect(withBody.length).toBeGreaterThanOrEqual(5);
    for (const route of withBody) {
      if (route.path.startsWith('/v1/hooks/')) continue; // the provider's postback route reads its raw body itself
      const wrongType = await harness.app.inject({
        method: route.method as 'POST',
        url: urlOf(route.path),
        headers: { ...auth(), 'content-type': 'text/plain' },
        payload: 'hello',
      });
      expect(expectEnvelope(wrongType, `${route.method} ${route.path} text/plain`).code).toBe('unsupported_media_type');
      const large = await harness.app.inject({
        method: route.method as 'POST',
        url: urlOf(route.path),
        headers: { ...auth(), 'content-type': 'application/json' },
        payload: JSON.stringify({ padding: 'x'.repeat(8_000) }),
      });
      expect(expectEnvelope(large, `${route.method} ${route.path} too large`).code).toBe('payload_too_large');
    }
  });

  it('documents every error status of every route with an example body in the envelope, its code of that status', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<
              string,
              { content?: Record<string, { example?: { error: { code: string; message: string }; request_id: string } }> }
            >;
          }
        >
      >;
    };
    let documented = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400 || !response.content) continue;
          const example = response.content['application/json']?.example;
          expect(example, `${method} ${path} ${status}`).toBeDefined();
          expect(errorHttpStatus[example!.error.code as keyof typeof errorHttpStatus], `${method} ${path} ${status}`).toBe(Number(status));
          expect(example!.request_id).toMatch(/^req_/);
          documented += 1;
        }
      }
    }
    expect(documented).toBeGreaterThan(40);
    expect(document.paths['/v1/wallet/topup']!.post!.responses['400']!.content!['application/json']!.example!.error.message).toContain(
      'not offered',
    );
  });

  it('answers an unknown path 404 and oversized headers 431, in the envelope', async () => {
    expect(expectEnvelope(await harness.app.inject({ method: 'GET', url: '/v1/nothing-here', headers: auth() }), 'unknown path').code).toBe(
      'not_found',
    );
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = harness.app.server.address() as AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(`GET /v1/wallet HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`),
      );
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('utf8')));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n');
    const status = Number(head!.split(' ')[1]);
    expect(status).toBe(431);
    expectEnvelope({ statusCode: status, body: body!, headers: {} }, 'oversized headers');
    for (const route of routes)
      for (const method of route.methods)
        expect(Object.keys(document.paths[route.path]![method.toLowerCase()]!.responses), `${method} ${route.path}`).toContain('431');
  });

  it('reads the longest query a schema accepts (every id at its length in 4-byte characters) through its route', async () => {
    if (!harness.app.server.listening) await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = harness.app.server.address() as AddressInfo;
    const longest = (name: string, schema: Record<string, unknown>): string[] => {
      const items = (schema.items ?? schema) as { maxLength?: number; enum?: string[]; type?: string };
      const value = items.enum
        ? items.enum[0]!
        : items.type === 'integer'
          ? String(Number.MAX_SAFE_INTEGER)
          : '😀'.repeat(items.maxLength ?? 64);
      return Array.from({ length: schema.type === 'array' ? Number(schema.maxItems) : 1 }, () => `${name}=${encodeURIComponent(value)}`);
    };
    const parameters = document.paths['/v1/positions']!.get!.parameters!.filter((parameter) => parameter.in === 'query');
    const query = parameters.flatMap((parameter) => longest(parameter.name, parameter.schema)).join('&');
    // Past Node's own 16 KiB default, so the test fails if the gateway stops raising it.
    expect(query.length).toBeGreaterThan(16 * 1024);
    const response = await fetch(`http://127.0.0.1:${port}/v1/positions?${query}`, { headers: auth() });
    const answer = { statusCode: response.status, body: await response.text(), headers: {} };
    // This harness runs no execution service, so a request the route read ends at its call there (503), not at
    // the HTTP parser's 431.
    expect(expectEnvelope(answer, 'longest positions query').code).toBe('unavailable');
  });
});
