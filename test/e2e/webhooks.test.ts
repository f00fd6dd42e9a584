import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { verifyWebhook, WebhookSignatureError } from '../../services/client/src/webhooks';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

/**
 * Customer webhooks on the real stack: events announced by execution, recorded by the notifier from the NOTIFY
 * stream, delivered over real sockets to receivers in this process.
 */

interface Delivery {
  at: number;
  body: string;
  signature: string;
  eventId: string;
}

/** A webhook receiver whose answers the test scripts: a status per delivery, or holding the request open. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  private server: http.Server | undefined;
  private held: http.ServerResponse[] = [];
  port = 0;
  /** Status for each next delivery (then 200); 'hold' keeps the request open until release(). */
  script: Array<number | 'hold'> = [];

  async start(port = 0): Promise<this> {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.deliveries.push({
          at: Date.now(),
          body: Buffer.concat(chunks).toString('utf8'),
          signature: String(request.headers['mtx-signature'] ?? ''),
          eventId: String(request.headers['mtx-event-id'] ?? ''),
        });
        const next = this.script.shift() ?? 200;
        if (next === 'hold') this.held.push(response);
        else response.writeHead(next).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  release(): void {
    for (const response of this.held.splice(0)) response.writeHead(200).end();
  }

  async stop(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let e2e: ExecutionE2e;
let accountId: string;
const receivers: Receiver[] = [];

async function receiver(port = 0): Promise<Receiver> {
  const created = await new Receiver().start(port);
  receivers.push(created);
  return created;
}

async function placeBatch(key?: string): Promise<string> {
  const placed = await e2e.api(
    'POST',
    '/v1/orders',
    { orders: [{ account_id: accountId, symbol: 'EURUSD', operation: 'buy', volume: 0.01 }] },
    key ? { authorization: `Bearer ${key}` } : {},
  );
  expect(placed.status).toBe(200);
  return placed.body.batch_id as string;
}

beforeAll(async () => {
  e2e = await startExecutionE2e('e2ewebhooks', { WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '400', WEBHOOK_TIMEOUT_MS: '30000' }, [
    'notifications',
  ]);
  accountId = (await e2e.connect('mt4', 'OmegaCapital-Demo')).id;
}, 240_000);

afterAll(async () => {
  for (const each of receivers) await each.stop();
  await e2e?.close();
});

describe('webhook endpoints', () => {
  it('delivers batch.settled, signed, again after two 500s with the same event id', async () => {
    const target = await receiver();
    target.script = [500, 500];
    const created = await e2e.api('POST', '/v1/webhook_endpoints', { url: target.url, enabled_events: ['batch.settled'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.id).toMatch(/^we_/);
    const batchId = await placeBatch();
    await eventually(async () => {
      expect(target.deliveries).toHaveLength(3);
      return true;
    }, 15_000);
    const ids = new Set(target.deliveries.map((delivery) => delivery.eventId));
    expect(ids.size).toBe(1);
    for (const delivery of target.deliveries) {
      const event = verifyWebhook(delivery.body, delivery.signature, created.body.secret);
      expect(event.id).toBe(delivery.eventId);
      expect(event.type).toBe('batch.settled');
      expect(event.data).toMatchObject({ batch_id: batchId, kind: 'orders' });
    }
    const stored = (await e2e.api('GET', `/v1/orders/batches/${batchId}`)).body;
    expect(verifyWebhook(target.deliveries[2]!.body, target.deliveries[2]!.signature, created.body.secret).data.summary).toEqual(
      stored.summary,
    );
    // The same event is in the replay list, with the id the deliveries carried.
    const events = await e2e.api('GET', '/v1/events?type=batch.settled&limit=5');
    expect(events.body.data.map((event: { id: string }) => event.id)).toContain([...ids][0]);
    // A body changed on the way, or signed with another secret, does not verify.
    const original = target.deliveries[0]!;
    expect(() => verifyWebhook(original.body.replace('orders', 'close'), original.signature, created.body.secret)).toThrow(
      WebhookSignatureError,
    );
    expect(() => verifyWebhook(original.body, original.signature, 'whsec_another')).toThrow(WebhookSignatureError);
    expect((await e2e.api('DELETE', `/v1/webhook_endpoints/${created.body.id}`)).body).toMatchObject({
      id: created.body.id,
      deleted: true,
    });
  });

  it('gives a receiver that was down every event, in order, once it is back', async () => {
    const target = await receiver();
    const port = target.port;
    const created = await e2e.api('POST', '/v1/webhook_endpoints', { url: target.url });
    await target.stop();
    const batches: string[] = [];
    for (let index = 0; index < 4; index++) batches.push(await placeBatch());
    // Each is recorded while the receiver is down.
    await eventually(async () => {
      const listed = (await e2e.api('GET', '/v1/events?type=batch.settled&limit=10')).body.data as Array<{ data: { batch_id: string } }>;
      expect(listed.map((event) => event.data.batch_id).slice(0, 4)).toEqual([...batches].reverse());
      return true;
    }, 15_000);
    const back = await receiver(port);
    await eventually(async () => {
      expect(back.deliveries.length).toBeGreaterThanOrEqual(4);
      return true;
    }, 20_000);
    const delivered = back.deliveries.map((delivery) => verifyWebhook(delivery.body, delivery.signature, created.body.secret));
    const firstOfEach = [...new Map(delivered.map((event) => [event.id, event])).values()];
    expect(firstOfEach.map((event) => event.data.batch_id)).toEqual(batches);
    // At least once: anything delivered twice carries the same id, and order holds.
    expect(delivered.map((event) => event.data.batch_id).filter((id, index, all) => all.indexOf(id) === index)).toEqual(batches);
    await e2e.api('DELETE', `/v1/webhook_endpoints/${created.body.id}`);
  });

  it("keeps one customer's hanging endpoint from delaying another customer's events", async () => {
    const hanging = await receiver();
    hanging.script = ['hold', 'hold', 'hold'];
    const prompt = await receiver();
    const held = await e2e.api('POST', '/v1/webhook_endpoints', { url: hanging.url });
    const other = await e2e.newCustomer('webhooks other');
    const asOther = { authorization: `Bearer ${other.full}` };
    const otherAccount = await e2e.api(
      'POST',
      '/v1/accounts',
      { platform: 'mt4', server: 'OmegaCapital-Demo', login: '7800100', password: 'pw-hook' },
      asOther,
    );
    const promptEndpoint = await e2e.api('POST', '/v1/webhook_endpoints', { url: prompt.url }, asOther);
    await placeBatch();
    await eventually(async () => {
      expect(hanging.deliveries).toHaveLength(1);
      return true;
    }, 10_000);
    const placed = await e2e.api(
      'POST',
      '/v1/orders',
      { orders: [{ account_id: otherAccount.body.id, symbol: 'EURUSD', operation: 'buy', volume: 0.01 }] },
      asOther,
    );
    const answeredAt = Date.now();
    await eventually(async () => {
      expect(prompt.deliveries).toHaveLength(1);
      return true;
    }, 10_000);
    // Delivered while the first customer's endpoint still holds its request open.
    expect(hanging.deliveries).toHaveLength(1);
    const event = verifyWebhook(prompt.deliveries[0]!.body, prompt.deliveries[0]!.signature, promptEndpoint.body.secret);
    expect(event.data.batch_id).toBe(placed.body.batch_id);
    process.stdout.write(
      `[webhooks] other customer's event delivered ${prompt.deliveries[0]!.at - answeredAt} ms after its batch answered\n`,
    );
    hanging.release();
    await e2e.api('DELETE', `/v1/webhook_endpoints/${held.body.id}`);
  });

  it('refuses bad endpoints with 400, lets a read-only key read and not write, and hides other customers', async () => {
    for (const [body, param] of [
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'https://user:pass@example.com/hook' }, 'url'],
      [{ url: 'https://example.com/hook', enabled_events: ['batch.exploded'] }, 'enabled_events[0]'],
      [{ url: 'https://example.com/hook', extra: true }, 'extra'],
    ] as const) {
      const refused = await e2e.api('POST', '/v1/webhook_endpoints', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.param, JSON.stringify(body)).toBe(param);
    }
    const readOnly = { authorization: `Bearer ${e2e.keys.read}` };
    expect((await e2e.api('GET', '/v1/webhook_endpoints', undefined, readOnly)).status).toBe(200);
    expect((await e2e.api('GET', '/v1/events', undefined, readOnly)).status).toBe(200);
    const write = await e2e.api('POST', '/v1/webhook_endpoints', { url: 'https://example.com/hook' }, readOnly);
    expect(write.status).toBe(403);
    const mine = await e2e.api('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/never' });
    expect((await e2e.api('DELETE', `/v1/webhook_endpoints/${mine.body.id}`, undefined, readOnly)).status).toBe(403);
    const stranger = await e2e.newCustomer('webhooks stranger');
    const asStranger = { authorization: `Bearer ${stranger.full}` };
    expect((await e2e.api('DELETE', `/v1/webhook_endpoints/${mine.body.id}`, undefined, asStranger)).status).toBe(404);
    expect((await e2e.api('GET', '/v1/webhook_endpoints', undefined, asStranger)).body).toEqual({ data: [], has_more: false });
    expect((await e2e.api('GET', '/v1/events', undefined, asStranger)).body).toEqual({ data: [], has_more: false });
    const listed = (await e2e.api('GET', '/v1/webhook_endpoints')).body.data.map((endpoint: { id: string }) => endpoint.id);
    expect(listed).toContain(mine.body.id);
    expect(JSON.stringify((await e2e.api('GET', '/v1/webhook_endpoints')).body)).not.toContain('whsec_');
    await e2e.api('DELETE', `/v1/webhook_endpoints/${mine.body.id}`);
    expect((await e2e.api('GET', '/v1/events?starting_after=evt_00000000000000000000000000000000')).status).toBe(400);
  });

  it('test-sends a signed ping to one endpoint only, listed in the events; 403 read-only, 404 for others', async () => {
    const tested = await receiver();
    const bystander = await receiver();
    const target = await e2e.api('POST', '/v1/webhook_endpoints', { url: tested.url, enabled_events: ['batch.settled'] });
    const other = await e2e.api('POST', '/v1/webhook_endpoints', { url: bystander.url });
    const sent = await e2e.api('POST', `/v1/webhook_endpoints/${target.body.id}/test`);
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ type: 'ping', endpoint_id: target.body.id });
    expect(sent.body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    await eventually(async () => {
      expect(tested.deliveries).toHaveLength(1);
      return true;
    }, 10_000);
    // Delivered although the endpoint receives only batch.settled, and signed with its secret.
    const ping = verifyWebhook(tested.deliveries[0]!.body, tested.deliveries[0]!.signature, target.body.secret);
    expect(ping).toMatchObject({ id: sent.body.id, type: 'ping', data: { endpoint_id: target.body.id, url: tested.url } });
    // The other endpoint (every type) gets its own ping and never the first: its deliveries run in order.
    const second = await e2e.api('POST', `/v1/webhook_endpoints/${other.body.id}/test`);
    await eventually(async () => {
      expect(bystander.deliveries.map((delivery) => delivery.eventId)).toEqual([second.body.id]);
      return true;
    }, 10_000);
    const listed = await e2e.api('GET', '/v1/events?type=ping&limit=10');
    expect(listed.body.data.map((event: { id: string }) => event.id)).toEqual([second.body.id, sent.body.id]);

    const readOnly = { authorization: `Bearer ${e2e.keys.read}` };
    const refused = await e2e.api('POST', `/v1/webhook_endpoints/${target.body.id}/test`, undefined, readOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    const stranger = await e2e.newCustomer('webhooks test stranger');
    const asStranger = { authorization: `Bearer ${stranger.full}` };
    const hidden = await e2e.api('POST', `/v1/webhook_endpoints/${target.body.id}/test`, undefined, asStranger);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
    expect((await e2e.api('POST', '/v1/webhook_endpoints/we_unknown/test')).status).toBe(404);
    expect((await e2e.api('POST', '/v1/webhook_endpoints/nonsense/test')).status).toBe(404);
    await e2e.api('DELETE', `/v1/webhook_endpoints/${other.body.id}`);
    expect((await e2e.api('POST', `/v1/webhook_endpoints/${other.body.id}/test`)).status).toBe(404);
    // Nothing was sent by the refused calls.
    expect((await e2e.api('GET', '/v1/events?type=ping&limit=10')).body.data).toHaveLength(2);
    expect(tested.deliveries).toHaveLength(1);
    await e2e.api('DELETE', `/v1/webhook_endpoints/${target.body.id}`);
  });
});
