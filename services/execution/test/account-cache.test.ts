import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { createLogger } from '@mtx/shared/logger';
import { databaseName } from '@mtx/shared/mongo';
import { announcements } from '@mtx/shared/announcements';
import { createExecutionApp, type ExecutionApp } from '../src/app';
import { loadExecutionConfig } from '../src/config';
import { eventually } from '@mtx/shared/testing';
import { plain, startExecutionStack, type ExecutionStack } from './stack';

/**
 * Two execution replicas with account caches far longer than the test: only the announcement of a change can make
 * the other replica see it, so these tests show that every change reaches every replica at once.
 */
const customer = 'cus_exec_cache';
const cacheMs = '600000';
let stack: ExecutionStack;
let replica: ExecutionApp;
let replicaClient: UnaryClient<any>;

beforeAll(async () => {
  stack = await startExecutionStack({ label: 'acctcache', executionEnv: { ACCOUNT_CACHE_MS: cacheMs } });
  await stack.control('/control/prices', 'POST', { frozen_all: true });
  replica = createExecutionApp({
    config: loadExecutionConfig({
      MONGODB_DATABASE_PREFIX: stack.prefix,
      SEATS_REQUIRED: 'false',
      TERMINAL_SUBJECT_ROOT: stack.subjectRoot,
      RECONCILE_INTERVAL_MS: '0',
      ACCOUNT_CACHE_MS: cacheMs,
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
    }),
    database: stack.mongo.db(databaseName(stack.prefix, 'execution')),
    nats: stack.nats,
    logger: createLogger('execution-replica', { level: 'silent' }),
  });
  await replica.start();
  replicaClient = createUnaryClient<any>(
    'execution/v1/execution.proto',
    'mtx.execution.v1.ExecutionService',
    `127.0.0.1:${replica.port}`,
    10_000,
  );
});

afterAll(async () => {
  replicaClient?.close();
  await replica?.stop(1_000);
  await stack?.close();
});

const placeOn = (client: UnaryClient<any>, accountId: string) =>
  client
    .call('PlaceOrders', {
      customer_id: customer,
      orders: [{ account_id: accountId, fields: { symbol: 'EURUSD', operation: 'buy', volume: 0.1 } }],
    })
    .then(plain);

describe('account cache across execution replicas', () => {
  it("drops an account on every replica when one changes its billing status, long before the cache's own bound", async () => {
    const account = await stack.client.call('CreateAccount', {
      customer_id: customer,
      platform: 'mt5',
      server: 'AlphaFX-Live',
      login: '63001',
      password: 'pw-63001',
      label: 'cached',
    });
    // The replica resolves (and caches) the account with its first batch.
    expect((await placeOn(replicaClient, account.id)).results[0].status).toBe('filled');
    const heard: string[] = [];
    const listener = stack.nats.subscribe(announcements.accountChanged.subject, {
      callback: (_, message) => heard.push(new TextDecoder().decode(message.data)),
    });
    try {
      await stack.client.call('SetAccountBillingStatus', { customer_id: customer, account_id: account.id, status: 'suspended' });
      // The replica shares this test's NATS connection: once the test has heard the announcement and a round trip
      // after it is back (the server sent every copy before the answer), the replica has heard it too.
      await eventually(async () => heard.length >= 1, 5_000, 10);
      await stack.nats.flush();
      const refused = await placeOn(replicaClient, account.id);
      expect(refused.results[0]).toMatchObject({ status: 'rejected', retcode_description: 'TRADE_RETCODE_TRADE_DISABLED' });
      await stack.client.call('SetAccountBillingStatus', { customer_id: customer, account_id: account.id, status: 'active' });
      await eventually(async () => heard.length >= 2, 5_000, 10);
      await stack.nats.flush();
      expect((await placeOn(replicaClient, account.id)).results[0].status).toBe('filled');
      expect(heard.map((text) => JSON.parse(text))).toEqual([{ account_id: account.id }, { account_id: account.id }]);
    } finally {
      listener.unsubscribe();
    }
  });

  it('forgets a disconnected account on every replica at once', async () => {
    const account = await stack.client.call('CreateAccount', {
      customer_id: customer,
      platform: 'mt5',
      server: 'AlphaFX-Live',
      login: '63002',
      password: 'pw-63002',
      label: 'to disconnect',
    });
    expect((await placeOn(replicaClient, account.id)).results[0].status).toBe('filled');
    const heard: string[] = [];
    const listener = stack.nats.subscribe(announcements.accountChanged.subject, {
      callback: (_, message) => heard.push(new TextDecoder().decode(message.data)),
    });
    try {
      await stack.client.call('DeleteAccount', { customer_id: customer, account_id: account.id });
      await eventually(async () => heard.length >= 1, 5_000, 10);
      await stack.nats.flush();
    } finally {
      listener.unsubscribe();
    }
    const answer = await placeOn(replicaClient, account.id).then(
      () => 'accepted',
      (error: { code?: string }) => error.code,
    );
    expect(answer).toBe('unknown_account');
  });
});
