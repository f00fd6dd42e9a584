import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@mtx/shared/clock';
import { FreshCache } from '@mtx/shared/fresh-cache';
import { connectService } from '@mtx/shared/grpc-services';
import type { ServiceApp } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import type { NatsConnection } from '@mtx/shared/nats';
import { createBillingApp } from '../../services/billing/src/app';
import { executionPortFromClient } from '../../services/billing/src/clients/execution';
import { walletPortFromClient as billingWalletPort } from '../../services/billing/src/clients/wallet';
import { loadBillingConfig } from '../../services/billing/src/config';
import { billingCollections } from '../../services/billing/src/store/billing-store';
import { createBrokerSimApp } from '../../services/broker-sim/src/app';
import { loadBrokerSimConfig } from '../../services/broker-sim/src/config';
import { createConnectorMt4 } from '../../services/connector-mt4/src/app';
import { createConnectorMt5 } from '../../services/connector-mt5/src/app';
import { loadConnectorConfig } from '../../services/connector-runtime/src/config';
import { createSandboxApp } from '../../services/crypto-sandbox/src/app';
import { loadSandboxConfig } from '../../services/crypto-sandbox/src/config';
import { createExecutionApp } from '../../services/execution/src/app';
import { loadExecutionConfig } from '../../services/execution/src/config';
import { createGatewayService } from '../../services/gateway/src/app';
import { createAuthenticator } from '../../services/gateway/src/app/authenticator';
import { createIdempotency } from '../../services/gateway/src/app/idempotency';
import { createRateLimiter } from '../../services/gateway/src/app/rate-limiter';
import { loadGatewayConfig } from '../../services/gateway/src/config';
import type { BackendClients } from '../../services/gateway/src/context';
import { AuthFailureLimiter } from '../../services/gateway/src/domain/auth-failures';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';
import { createNotificationsApp } from '../../services/notifications/src/app';
import { loadNotificationsConfig } from '../../services/notifications/src/config';
import { createPaymentsApp } from '../../services/payments/src/app';
import { loadPaymentsConfig } from '../../services/payments/src/config';
import { createWalletApp } from '../../services/wallet/src/app';
import { loadWalletConfig } from '../../services/wallet/src/config';
import { servicesDirectory } from './source-files';

/**
 * The app contract (docs/architecture.md, "Code layout"): building a service's app only wires objects. Each app
 * is built here on dependencies that cannot be used unnoticed: a Mongo database of a client never connected (a
 * store command would make it connect), a NATS connection that records every call made on it, and gRPC clients
 * pointed at a port nothing listens on (creating one opens nothing; a call would dial). Every socket connection
 * attempted in this process is counted. Building must attempt none and call nothing on NATS; stopping an app
 * that was never started must return within its grace.
 */

const silent = createLogger('app-contract', { level: 'silent' });

interface Recorded {
  nats: NatsConnection;
  calls: string[];
}

/** A NATS connection stand-in: any method called on it is recorded (and answers nothing). */
function recordingNats(): Recorded {
  const calls: string[] = [];
  const nats = new Proxy(
    {},
    {
      get(_target, property) {
        // Not a method: `await` and inspection look these up on any object.
        if (property === 'then' || typeof property === 'symbol') return undefined;
        return (..._parameters: unknown[]) => {
          calls.push(String(property));
          return undefined;
        };
      },
    },
  ) as NatsConnection;
  return { nats, calls };
}

/** Every socket connection attempted in this process (store, NATS, gRPC and HTTP clients all end here). */
const connectAttempts: string[] = [];
const connectSpy = vi.spyOn(net.Socket.prototype, 'connect');

let mongo: MongoClient;
const storeEvents: string[] = [];
let deadAddress: string;
let dataDirectory: string;

beforeAll(async () => {
  connectSpy.mockImplementation(function (this: net.Socket, ...parameters: unknown[]) {
    connectAttempts.push(JSON.stringify(parameters[0]));
    // Attempted is enough: it is refused at once, so nothing waits on it.
    process.nextTick(() => this.destroy(new Error('the app contract test allows no connection')));
    return this;
  } as unknown as typeof net.Socket.prototype.connect);
  // A port that was free a moment ago: nothing listens on it.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  deadAddress = `127.0.0.1:${port}`;
  mongo = new MongoClient(`mongodb://${deadAddress}/?directConnection=true`, {
    monitorCommands: true,
    serverSelectionTimeoutMS: 1_000,
  });
  for (const event of ['topologyOpening', 'serverHeartbeatStarted', 'commandStarted', 'connectionCreated'] as const)
    mongo.on(event, () => storeEvents.push(event));
  dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'app-contract-'));
});

afterEach(() => {
  connectAttempts.length = 0;
  storeEvents.length = 0;
});

afterAll(async () => {
  connectSpy.mockRestore();
  await mongo.close();
  fs.rmSync(dataDirectory, { recursive: true, force: true });
});

const baseEnvironment = () => ({
  MONGODB_URL: `mongodb://${deadAddress}`,
  MONGODB_DATABASE_PREFIX: 'contract_',
  NATS_URL: `nats://${deadAddress}`,
  LOG_LEVEL: 'silent',
});

const database = (name: string) => mongo.db(`contract_${name}`);
const grpcClient = <Name extends Parameters<typeof connectService>[0]>(name: Name) => connectService(name, deadAddress, 1_000);

/** Builds one service's app; `nats` is the recording stand-in, to hand it where the service takes one. */
type Build = (nats: NatsConnection) => Promise<ServiceApp> | ServiceApp;

const builds: Record<string, Build> = {
  wallet: (nats) =>
    createWalletApp({
      config: loadWalletConfig(baseEnvironment()),
      database: database('wallet'),
      clock: systemClock,
      logger: silent,
      nats,
    }),
  payments: (nats) =>
    createPaymentsApp({
      config: loadPaymentsConfig(baseEnvironment()),
      database: database('payments'),
      clock: systemClock,
      logger: silent,
      wallet: grpcClient('wallet'),
      nats,
    }),
  billing: (nats) =>
    createBillingApp({
      config: loadBillingConfig(baseEnvironment()),
      collections: billingCollections(database('billing')),
      clock: systemClock,
      logger: silent,
      wallet: billingWalletPort(grpcClient('wallet'), 1_000),
      execution: executionPortFromClient(grpcClient('execution'), 1_000),
      nats,
    }),
  execution: (nats) =>
    createExecutionApp({
      config: loadExecutionConfig({ ...baseEnvironment(), SEATS_REQUIRED: 'true' }),
      database: database('execution'),
      nats,
      logger: silent,
      billing: grpcClient('billing'),
    }),
  gateway: () => {
    const config = loadGatewayConfig(baseEnvironment());
    const store = createGatewayStore(database('gateway'));
    const clock = systemClock;
    const clients = {
      wallet: grpcClient('wallet'),
      payments: grpcClient('payments'),
      billing: grpcClient('billing'),
      execution: grpcClient('execution'),
      notifications: grpcClient('notifications'),
    } as unknown as BackendClients;
    return createGatewayService({
      config,
      logger: silent,
      clock,
      store,
      clients,
      authenticator: createAuthenticator({ store, clock, cacheMs: config.API_KEY_CACHE_MS }),
      authFailures: new AuthFailureLimiter({ clock, failuresPerMinute: config.AUTH_FAILURES_PER_MINUTE, exemptAddresses: [] }),
      rateLimiter: createRateLimiter({ store, clock }),
      idempotency: createIdempotency({ store, clock, ttlMs: config.IDEMPOTENCY_TTL_MS, leaseMs: config.IDEMPOTENCY_LEASE_MS }),
      readModels: {
        wallet: new FreshCache({ freshMs: config.WALLET_READ_FRESH_MS, entriesMax: config.READ_MODEL_ENTRIES_MAX }),
        subscription: new FreshCache({ freshMs: config.SUBSCRIPTION_READ_FRESH_MS, entriesMax: config.READ_MODEL_ENTRIES_MAX }),
      },
      readiness: async () => ({}),
    });
  },
  notifications: (nats) =>
    createNotificationsApp({
      config: loadNotificationsConfig(baseEnvironment()),
      database: database('notifications'),
      nats,
      logger: silent,
    }),
  'connector-mt4': (nats) =>
    createConnectorMt4({
      config: loadConnectorConfig('mt4', baseEnvironment()),
      logger: silent,
      nats,
    }),
  'connector-mt5': (nats) =>
    createConnectorMt5({
      config: loadConnectorConfig('mt5', baseEnvironment()),
      logger: silent,
      nats,
    }),
  'broker-sim': () => {
    const config = loadBrokerSimConfig({ ...baseEnvironment(), DATA_DIR: dataDirectory });
    return createBrokerSimApp({
      config,
      journalFile: path.join(dataDirectory, 'journal.ndjson'),
      terminalsFile: path.join(dataDirectory, 'terminals.json'),
      logger: silent,
    });
  },
  'crypto-sandbox': () =>
    createSandboxApp({
      config: loadSandboxConfig(baseEnvironment()),
      database: database('crypto-sandbox'),
      clock: systemClock,
      logger: silent,
    }),
};

/** Lets what a build may have set going (a driver's connect, a timer at 0) run before anything is counted. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('one app contract', () => {
  it('covers every runnable service', () => {
    const runnable = fs
      .readdirSync(servicesDirectory)
      .filter((folder) => fs.existsSync(path.join(servicesDirectory, folder, 'src', 'main.ts')))
      .sort();
    expect(Object.keys(builds).sort()).toEqual(runnable);
  });

  it.each(Object.keys(builds))('%s: building the app opens no socket and calls nothing on NATS', async (service) => {
    const { nats, calls } = recordingNats();
    const app = await builds[service]!(nats);
    await settle();
    expect(typeof app.start).toBe('function');
    expect(typeof app.stop).toBe('function');
    expect({ connectAttempts, storeEvents, natsCalls: calls }).toEqual({ connectAttempts: [], storeEvents: [], natsCalls: [] });

    // Never started, it has nothing to wait for: a stop settles (it waits on nothing that never comes) and still
    // dials nothing. Not a timing test: the bound only tells a hang from a stop on a loaded machine.
    let hangTimer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      app.stop(200).then(() => 'stopped'),
      new Promise<string>((resolve) => {
        hangTimer = setTimeout(() => resolve('still stopping'), 15_000);
      }),
    ]);
    clearTimeout(hangTimer);
    expect(outcome).toBe('stopped');
    await settle();
    expect({ connectAttempts, storeEvents }).toEqual({ connectAttempts: [], storeEvents: [] });
  });

  it('broker-sim: building the app neither reads nor creates its journal', async () => {
    const journalFile = path.join(dataDirectory, 'untouched', 'journal.ndjson');
    const app = createBrokerSimApp({
      config: loadBrokerSimConfig({ ...baseEnvironment(), DATA_DIR: dataDirectory }),
      journalFile,
      terminalsFile: path.join(path.dirname(journalFile), 'terminals.json'),
      logger: silent,
    });
    expect(fs.existsSync(path.dirname(journalFile))).toBe(false);
    await app.stop(200);
    expect(fs.existsSync(path.dirname(journalFile))).toBe(false);
  });

  // Last: it makes the store client connect.
  it('notices a build that sends a store command, dials a gRPC service or calls NATS', async () => {
    // The instruments themselves: each kind of use the contract forbids shows up in what is checked above.
    const { nats, calls } = recordingNats();
    nats.subscribe('any.subject');
    await database('probe')
      .collection('probe')
      .createIndex({ field: 1 })
      .catch(() => undefined);
    const client = grpcClient('wallet');
    await client.call('Audit', {}).catch(() => undefined);
    client.close();
    await settle();
    expect(calls).toEqual(['subscribe']);
    expect(storeEvents.length).toBeGreaterThan(0);
    expect(connectAttempts.length).toBeGreaterThan(1);
  });
});
