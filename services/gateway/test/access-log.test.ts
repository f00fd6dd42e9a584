import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogger } from '@mtx/shared/testing';
import { startGatewayHarness, type GatewayHarness } from './helpers';

let harness: GatewayHarness;
const captured = capturedLogger('gateway', 'info');

beforeAll(async () => {
  harness = await startGatewayHarness({ logger: captured.logger });
});

afterAll(async () => harness?.close());

describe('the access log', () => {
  it('writes one line per request naming it, without making a child logger per request', async () => {
    const childrenBefore = captured.childrenMade();
    const first = await harness.app.inject({ method: 'GET', url: '/v1/wallet' });
    const second = await harness.app.inject({ method: 'GET', url: '/v1/wallet', headers: { authorization: 'Bearer sk_nope' } });
    expect([first.statusCode, second.statusCode]).toEqual([401, 401]);
    const lines = captured.lines.filter((line) => line.msg === 'request completed');
    expect(lines.map((line) => line.request_id)).toEqual([first.headers['x-request-id'], second.headers['x-request-id']]);
    expect(lines[0]).toMatchObject({ method: 'GET', route: '/v1/wallet', status: 401, service: 'gateway' });
    expect(captured.childrenMade()).toBe(childrenBefore);
  });

  it("keeps a route's own log level: the API reference (warn) writes no access line", async () => {
    const before = captured.lines.length;
    const reference = await harness.app.inject({ method: 'GET', url: '/docs' });
    expect(reference.statusCode).toBeLessThan(400);
    expect(captured.lines.slice(before).filter((line) => line.msg === 'request completed')).toEqual([]);
  });
});
