import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { customerEvent, developmentEventIdSecret, identifiedCustomerEvent } from '@mtx/shared/customer-events';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { eventually, testDatabasePrefix } from '@mtx/shared/testing';
import { verifyWebhook } from '@mtx/client';
import { createNotificationsApp, type NotificationsApp } from '../src/app';
import { createWebhookSender, type SendOutcome, type WebhookSender } from '../src/clients/webhook-sender';
import { loadNotificationsConfig } from '../src/config';
import { retryDelayMs, retriesExhausted } from '../src/domain/retry-schedule';
import { signatureHeader } from '../src/domain/signature';
import { isPublicAddress } from '../src/domain/address-class';
import { parseEndpointUrl } from '../src/domain/url-policy';

const logger = createLogger('notifications-test', { level: 'silent' });
const prefix = testDatabasePrefix('notify');
let mongo: MongoClient;
let nats: NatsConnection;

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'));
  nats = await connectNats(inject('natsUrl'), 'notifications-test', logger);
});

afterAll(async () => {
  await mongo.db(databaseName(prefix, 'notifications')).dropDatabase();
  await mongo.close();
  await nats.drain();
});

function appWith(
  options: { allowPrivate: boolean; clock?: ManualClock; sender?: WebhookSender; resolve?: (host: string) => Promise<string[]> },
  label: string,
): NotificationsApp {
  const config = loadNotificationsConfig({
    MONGODB_DATABASE_PREFIX: `${prefix}${label}_`,
    WEBHOOKS_ALLOW_PRIVATE: options.allowPrivate ? '1' : '0',
    WEBHOOK_RETRY_BASE_MS: '10',
    WEBHOOK_RETRY_MAX_MS: '20',
    WEBHOOK_RETRY_FOR_MS: String(3 * 24 * 3_600_000),
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
  });
  return createNotificationsApp({
    config,
    database: mongo.db(databaseName(prefix, 'notifications')),
    nats,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sender ? { sender: options.sender } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
}

describe('address policy (SSRF)', () => {
  it('tells public addresses from private, loopback, link-local and mapped ones', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      'not-an-ip',
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });

  it('refuses URLs that are not http(s), carry credentials, or name a private host', () => {
    for (const url of [
      'ftp://example.com/',
      'https://user:secret@example.com/',
      'http://127.0.0.1:8080/hook',
      'http://[::1]/hook',
      'http://localhost/hook',
      'http://api.localhost/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.5/hook',
      'https://example.com/hook#part',
    ])
      expect(() => parseEndpointUrl(url, false), url).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'url' }));
    expect(parseEndpointUrl('https://example.com/hook', false).hostname).toBe('example.com');
    expect(parseEndpointUrl('http://127.0.0.1:8080/hook', true).port).toBe('8080');
  });

  it('refuses at creation a host that resolves to a private address, and at delivery a connection to one', async () => {
    const app = appWith({ allowPrivate: false, resolve: async () => ['10.0.0.7'] }, 'ssrf');
    await expect(
      app.endpoints.create('cus_ssrf0000000001', { url: 'https://intranet.example/hook', enabled_events: [], description: '' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'url',
    });
    await expect(
      app.endpoints.create('cus_ssrf0000000001', { url: 'http://127.0.0.1:1/hook', enabled_events: [], description: '' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(await app.endpoints.list('cus_ssrf0000000001')).toEqual([]);
    // A name resolving to loopback (here: localhost itself, as DNS rebinding would) is refused on connection.
    const sender = createWebhookSender({ allowPrivate: false });
    const outcome = await sender.send({
      customerId: 'cus_ssrf0000000001',
      url: 'http://localhost:9/hook',
      body: '{}',
      headers: {},
      signal: AbortSignal.timeout(5_000),
    });
    await sender.close();
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/not a public address/);
  });
});

describe('retry schedule', () => {
  it('doubles from the base up to the cap, with jitter between half and one and a half of it', () => {
    expect(retryDelayMs(1, 1_000, 60_000, () => 0.5)).toBe(1_000);
    expect(retryDelayMs(3, 1_000, 60_000, () => 0.5)).toBe(4_000);
    expect(retryDelayMs(20, 1_000, 60_000, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(3, 1_000, 60_000, () => 0)).toBe(2_000);
    expect(retryDelayMs(3, 1_000, 60_000, () => 0.999)).toBeLessThan(6_000);
    expect(retriesExhausted(0, 3 * 24 * 3_600_000 - 1, 3 * 24 * 3_600_000)).toBe(false);
    expect(retriesExhausted(0, 3 * 24 * 3_600_000, 3 * 24 * 3_600_000)).toBe(true);
  });
});

describe('event log', () => {
  it('records a group of events once each, in order, and puts in the entry of an event claimed by a process that died', async () => {
    const app = appWith({ allowPrivate: true }, 'groups');
    const { events, eventIds } = app.store;
    const at = new Date('2026-11-25T10:00:00Z');
    const event = (customerId: string, occurrence: string) =>
      identifiedCustomerEvent(developmentEventIdSecret, customerEvent('topup.expired', occurrence, customerId, { occurrence }, at));
    const [one, two, other] = [event('cus_groups0000001', 'a'), event('cus_groups0000001', 'b'), event('cus_groups0000002', 'e')];
    expect(await app.events.recordAll([one, two, other, one])).toEqual([true, true, true, false]);
    const entryIds = async (customerId: string) =>
      (await events.find({ customer_id: customerId }).toArray()).map((entry) => [entry._id, entry.event_id]).sort();
    expect(await entryIds('cus_groups0000001')).toEqual([
      ['cus_groups0000001:1', one.id],
      ['cus_groups0000001:2', two.id],
    ]);
    expect(await entryIds('cus_groups0000002')).toEqual([['cus_groups0000002:1', other.id]]);

    // A process that claimed an event's id and died before its entry went in: the replay puts the entry in, once.
    const orphan = event('cus_groups0000001', 'c');
    await eventIds.insertOne({ _id: orphan.id, customer_id: 'cus_groups0000001', number: 3 });
    const later = event('cus_groups0000001', 'd');
    expect(await app.events.recordAll([two, orphan, later])).toEqual([false, true, true]);
    expect(await app.events.recordAll([orphan, later])).toEqual([false, false]);
    expect(await entryIds('cus_groups0000001')).toEqual([
      ['cus_groups0000001:1', one.id],
      ['cus_groups0000001:2', two.id],
      ['cus_groups0000001:3', orphan.id],
      ['cus_groups0000001:4', later.id],
    ]);
    expect((await eventIds.findOne({ _id: later.id }))?.number).toBe(4);
    expect(await app.events.head('cus_groups0000001')).toBe(4);
  });
});

describe('delivery', () => {
  it('records an event announced twice once, and disables an endpoint that failed for three days', async () => {
    const clock = new ManualClock('2026-11-25T10:00:00Z');
    const attempts: string[] = [];
    const failing: WebhookSender = {
      async send({ body }): Promise<SendOutcome> {
        attempts.push(body);
        return { ok: false, status: 503, error: 'answered 503' };
      },
      release() {},
      async close() {},
    };
    const app = appWith({ allowPrivate: true, clock, sender: failing }, 'disable');
    // As the leader does when it takes the lead.
    app.dispatcher.start([]);
    const customerId = 'cus_disable000001';
    const endpoint = await app.endpoints.create(customerId, { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'], description: '' });
    const event = identifiedCustomerEvent(
      developmentEventIdSecret,
      customerEvent('topup.expired', 'expired:41', customerId, { topup_id: 41 }, clock.now()),
    );
    expect(await app.events.record(event)).toBe(true);
    expect(await app.events.record(event)).toBe(false);
    app.dispatcher.wakeCustomer(customerId);
    await eventually(async () => attempts.length >= 1);
    clock.advanceMs(3 * 24 * 3_600_000);
    await eventually(async () => (await app.endpoints.list(customerId))[0]?.status === 'disabled', 5_000);
    const [disabled] = await app.endpoints.list(customerId);
    expect(disabled).toMatchObject({ id: endpoint.id, status: 'disabled' });
    expect(disabled!.disabled_reason).toMatch(/answered 503/);
    const tried = attempts.length;
    app.dispatcher.wakeCustomer(customerId);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(attempts.length).toBe(tried);
    expect(new Set(attempts).size).toBe(1);
    app.dispatcher.stop();
  });

  it('signs each delivery so that the client verifies it, and a forged or stale one does not', async () => {
    const received: Array<{ body: string; signature: string }> = [];
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString(), signature: String(request.headers['mtx-signature']) });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    const app = appWith({ allowPrivate: true }, 'signed');
    app.dispatcher.start([]);
    const customerId = 'cus_signed0000001';
    const endpoint = await app.endpoints.create(customerId, {
      url: `http://127.0.0.1:${port}/`,
      enabled_events: ['topup.credited'],
      description: '',
    });
    await app.events.record(
      identifiedCustomerEvent(developmentEventIdSecret, customerEvent('topup.expired', 'expired:1', customerId, { topup_id: 1 })),
    );
    await app.events.record(
      identifiedCustomerEvent(
        developmentEventIdSecret,
        customerEvent('topup.credited', 'sandbox:tx1', customerId, { topup_id: 2, amount_eur_cents: 2_500 }),
      ),
    );
    app.dispatcher.wakeCustomer(customerId);
    await eventually(async () => received.length === 1);
    const event = verifyWebhook(received[0]!.body, received[0]!.signature, endpoint.secret!);
    // Only the type it subscribed to.
    expect(event).toMatchObject({ type: 'topup.credited', data: { topup_id: 2, amount_eur_cents: 2_500 } });
    const forged = signatureHeader('whsec_not_the_secret', received[0]!.body, Math.floor(Date.now() / 1000));
    expect(() => verifyWebhook(received[0]!.body, forged, endpoint.secret!)).toThrow(/no signature matches/);
    const stale = signatureHeader(endpoint.secret!, received[0]!.body, Math.floor(Date.now() / 1000) - 3_600);
    expect(() => verifyWebhook(received[0]!.body, stale, endpoint.secret!, 300)).toThrow(/old/);
    expect(() => verifyWebhook(received[0]!.body, 't=1', endpoint.secret!)).toThrow(/Mtx-Signature must be/);
    expect(() => verifyWebhook(received[0]!.body, undefined, endpoint.secret!)).toThrow(/no Mtx-Signature/);
    app.dispatcher.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
