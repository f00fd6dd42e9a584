import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { customerEvent, developmentEventIdSecret, identifiedCustomerEvent } from '@mtx/shared/customer-events';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { eventually, testDatabasePrefix } from '@mtx/shared/testing';
import { createNotificationsApp, type NotificationsApp } from '../src/app';
import { loadNotificationsConfig } from '../src/config';

const logger = createLogger('notifications-isolation-test', { level: 'silent' });
const prefix = testDatabasePrefix('notifyiso');
let mongo: MongoClient;
let nats: NatsConnection;

/**
 * One receiver, as a relay service shared by many customers is: customer A's endpoints are answered only when the
 * test lets them go (as slow as it gets), customer B's at once.
 */
class SharedReceiver {
  readonly held: http.ServerResponse[] = [];
  answeredSlow = 0;
  /** When each of B's events arrived, by event id. */
  readonly arrivedAt = new Map<string, number>();
  private readonly server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.startsWith('/slow/')) {
        this.held.push(response);
        return;
      }
      this.arrivedAt.set(String(request.headers['mtx-event-id']), performance.now());
      response.writeHead(204).end();
    });
  });
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  releaseSlow(): void {
    for (const response of this.held.splice(0)) {
      this.answeredSlow += 1;
      response.writeHead(204).end();
    }
  }

  async stop(): Promise<void> {
    this.releaseSlow();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

beforeAll(async () => {
  mongo = await connectMongo(inject('mongodbUrl'));
  nats = await connectNats(inject('natsUrl'), 'notifications-isolation-test', logger);
});

afterAll(async () => {
  await mongo.db(databaseName(prefix, 'notifications')).dropDatabase();
  await mongo.close();
  await nats.drain();
});

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

describe('delivery isolation between customers', () => {
  let app: NotificationsApp;
  const receiver = new SharedReceiver();

  beforeAll(async () => {
    await receiver.start();
    app = createNotificationsApp({
      config: loadNotificationsConfig({
        MONGODB_DATABASE_PREFIX: `${prefix}iso_`,
        WEBHOOKS_ALLOW_PRIVATE: '1',
        WEBHOOK_RETRY_BASE_MS: '10',
        WEBHOOK_RETRY_MAX_MS: '20',
        GRPC_PORT: '0',
        HOST: '127.0.0.1',
      }),
      database: mongo.db(databaseName(prefix, 'notifications')),
      nats,
      logger,
    });
    app.dispatcher.start([]);
  });

  afterAll(async () => {
    app.dispatcher.stop();
    await receiver.stop();
  });

  /** Records B's events one after another and waits for all to arrive; the lag of each, in ms. */
  async function customerBLagsMs(customerId: string, label: string, count: number): Promise<number[]> {
    const recordedAt = new Map<string, number>();
    for (let index = 0; index < count; index++) {
      const event = identifiedCustomerEvent(
        developmentEventIdSecret,
        customerEvent('topup.expired', `expired:${label}:${index}`, customerId, { topup_id: index }),
      );
      recordedAt.set(event.id, performance.now());
      await app.events.record(event);
      app.dispatcher.wakeCustomer(customerId);
    }
    await eventually(async () => [...recordedAt.keys()].every((id) => receiver.arrivedAt.has(id)), 20_000);
    return [...recordedAt].map(([id, at]) => receiver.arrivedAt.get(id)! - at);
  }

  it("leaves another customer's delivery lag unchanged while one customer's endpoints on the same host hang", async () => {
    const slowCustomer = 'cus_isoslow00000001';
    const quickCustomer = 'cus_isoquick0000001';
    const base = `http://127.0.0.1:${receiver.port}`;
    await app.endpoints.create(quickCustomer, { url: `${base}/quick`, enabled_events: ['*'], description: '' });
    const alone = await customerBLagsMs(quickCustomer, 'alone', 20);

    // Customer A: as many endpoints as a customer may have, all on the shared host, none answering.
    const slowEndpoints = 16;
    for (let index = 0; index < slowEndpoints; index++)
      await app.endpoints.create(slowCustomer, { url: `${base}/slow/${index}`, enabled_events: ['*'], description: '' });
    await app.events.record(
      identifiedCustomerEvent(developmentEventIdSecret, customerEvent('topup.expired', 'expired:slow', slowCustomer, { topup_id: 1 })),
    );
    app.dispatcher.wakeCustomer(slowCustomer);
    // Every one of A's deliveries is at the receiver, holding a connection, before B's events are made.
    await eventually(async () => receiver.held.length === slowEndpoints, 20_000);

    const beside = await customerBLagsMs(quickCustomer, 'beside', 20);
    // Order, not time: all of B's events arrived while every one of A's deliveries was still unanswered.
    expect(receiver.answeredSlow).toBe(0);
    expect(receiver.held.length).toBe(slowEndpoints);
    // And the lag itself: B's p99 beside A's hanging endpoints is B's p99 alone, give or take 2 s (far below the
    // 10 s delivery timeout A's deliveries would have pushed B's into, and generous for a busy 2-core machine).
    expect(percentile(beside, 0.99)).toBeLessThan(percentile(alone, 0.99) + 2_000);
    receiver.releaseSlow();
  });
});
