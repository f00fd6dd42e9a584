import crypto from 'node:crypto';
import { inject } from 'vitest';
import { startStack, type Stack } from '@mtx/devstack/services';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';
import { executionDatabaseNames } from '../../services/execution/src/store/execution-store';

export interface ExecutionE2e {
  stack: Stack;
  prefix: string;
  subjectRoot: string;
  keys: { full: string; read: string; customerId: string };
  api(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: any }>;
  control(path: string, method?: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Another customer of the same stack, with its own keys. */
  newCustomer(name: string): Promise<{ customerId: string; full: string; read: string }>;
  connect(
    platform: 'mt4' | 'mt5',
    server: string,
  ): Promise<{ id: string; login: string; password: string; server: string; platform: string; symbol_suffix: string }>;
  close(): Promise<void>;
}

/**
 * The execution path as real processes (gateway, execution, broker-sim, both connectors) on the shared test
 * FerretDB and NATS, isolated by a database prefix and a NATS subject root, with a customer and its keys.
 */
export async function startExecutionE2e(
  label: string,
  env: Record<string, string> = {},
  extraServices: ReadonlyArray<'notifications' | 'wallet' | 'payments' | 'billing'> = [],
): Promise<ExecutionE2e> {
  const prefix = testDatabasePrefix(label);
  const subjectRoot = `e${crypto.randomBytes(5).toString('hex')}`;
  const errors: string[] = [];
  const stack = await startStack({
    mongodbUrl: inject('mongodbUrl'),
    natsUrl: inject('natsUrl'),
    dataDirectory: inject('infrastructureDirectory'),
    services: ['execution', 'broker-sim', 'connector-mt4', 'connector-mt5', ...extraServices, 'gateway'],
    env: {
      MONGODB_DATABASE_PREFIX: prefix,
      TERMINAL_SUBJECT_ROOT: subjectRoot,
      SEATS_REQUIRED: 'false',
      EXECUTION_DEADLINE_MS: '1500',
      PING_DEADLINE_MS: '1000',
      BROKER_SIM_LATENCY_MS: '2',
      PRICE_TICK_MS: '0',
      RECONCILE_INTERVAL_MS: '1000',
      RECONCILE_SETTLE_AFTER_MS: '500',
      BROKER_CALL_DEADLINE_MS: '4000',
      SHUTDOWN_GRACE_MS: '3000',
      LOG_LEVEL: 'warn',
      OTEL_SDK_DISABLED: 'true',
      ...env,
    },
    onLine: (service, line) => {
      if (/"level":(50|60)/.test(line)) errors.push(`${service}: ${line}`);
    },
  });
  let mongo: MongoClient | undefined;
  try {
    mongo = await connectMongo(inject('mongodbUrl'));
    const store = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
    const customer = await createCustomer(store, `e2e ${label}`);
    const full = await issueKey(store, customer.customer_id, 'full');
    const read = await issueKey(store, customer.customer_id, 'read');
    const gatewayUrl = stack.gatewayUrl;
    const controlUrl = stack.env.BROKER_SIM_HTTP_URL!;
    let loginSequence = 80_000 + crypto.randomInt(10_000);
    const api: ExecutionE2e['api'] = async (method, path, body, headers = {}) => {
      const response = await fetch(`${gatewayUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${full.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    };
    const control: ExecutionE2e['control'] = async (path, method = 'GET', body) => {
      const response = await fetch(`${controlUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const openedMongo = mongo;
    return {
      stack,
      prefix,
      subjectRoot,
      keys: { full: full.key, read: read.key, customerId: customer.customer_id },
      api,
      control,
      async newCustomer(name) {
        const other = await createCustomer(store, name);
        return {
          customerId: other.customer_id,
          full: (await issueKey(store, other.customer_id, 'full')).key,
          read: (await issueKey(store, other.customer_id, 'read')).key,
        };
      },
      async connect(platform, server) {
        const login = String(++loginSequence);
        const password = `pw-${login}`;
        const response = await api('POST', '/v1/accounts', { platform, server, login, password, label: `${server} ${login}` });
        if (response.status !== 201) throw new Error(`connecting ${server} ${login} failed: ${JSON.stringify(response.body)}`);
        return { ...response.body, login, password };
      },
      async close() {
        await stack.stop();
        for (const name of [
          ...['gateway', 'broker_sim', 'notifications'].map((service) => databaseName(prefix, service)),
          ...executionDatabaseNames(databaseName(prefix, 'execution')),
        ])
          await openedMongo
            .db(name)
            .dropDatabase()
            .catch(() => undefined);
        await openedMongo.close();
        if (errors.length > 0) process.stderr.write(`[${label}] service errors:\n${errors.slice(-20).join('\n')}\n`);
      },
    };
  } catch (error) {
    await stack.stop();
    await mongo?.close();
    throw error;
  }
}
