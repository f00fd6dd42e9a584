import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type Db, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createSandboxApp, type SandboxApp } from '../src/app';
import { loadSandboxConfig, type SandboxConfig } from '../src/config';

/**
 * One crypto-sandbox on the shared test store, with its clock held by hand and a local receiver standing for the
 * merchant's callback endpoint, for the tests of each personality (sandbox, NOWPayments, BTCPay).
 */
export interface SandboxHarness {
  sandbox: SandboxApp;
  config: SandboxConfig;
  clock: ManualClock;
  /** The sandbox's HTTP API. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>` of the receiver; the personality's callback setting names a path on it. */
  receiverUrl: string;
  /** The sandbox's own database, to check what a refused request left behind. */
  database: Db;
  mongo: MongoClient;
  prefix: string;
  stop(): Promise<void>;
}

export interface Delivery {
  body: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * `settings` gets the receiver's base URL and returns the personality's settings; `onDelivery` sees every
 * callback the receiver gets and returns the status code to answer it with.
 */
export async function startSandboxHarness(
  label: string,
  settings: (receiverUrl: string) => Record<string, string>,
  onDelivery: (delivery: Delivery) => number,
): Promise<SandboxHarness> {
  const mongo = await connectMongo(inject('mongodbUrl'));
  const prefix = testDatabasePrefix(label);
  const clock = new ManualClock('2027-03-01T10:00:00Z');
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.statusCode = onDelivery({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const config = loadSandboxConfig({
    MONGODB_URL: inject('mongodbUrl'),
    MONGODB_DATABASE_PREFIX: prefix,
    POSTBACK_RETRY_BASE_MS: '20',
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    ...settings(receiverUrl),
  });
  const database = mongo.db(databaseName(prefix, 'crypto-sandbox'));
  const sandbox = await createSandboxApp({ config, database, clock, logger: createLogger('crypto-sandbox', { level: 'silent' }) });
  await sandbox.start();
  return {
    sandbox,
    config,
    clock,
    baseUrl: `http://127.0.0.1:${sandbox.port}`,
    receiverUrl,
    database,
    mongo,
    prefix,
    async stop() {
      await sandbox.stop(1_000);
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
      await database.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
}
