import { inject } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { createLogger, type Logger } from '@mtx/shared/logger';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { buildGateway } from '../src/app';
import type { GatewayApp } from '../src/context';
import { loadGatewayConfig, type GatewayConfig } from '../src/config';
import { connectGatewayDependencies, type ConnectedGateway } from '../src/dependencies';
import { createCustomer, issueKey } from '../src/app/customers';

export interface GatewayHarness {
  app: GatewayApp;
  connected: ConnectedGateway;
  config: GatewayConfig;
  clock: ManualClock;
  customer: { customer_id: string; full_key: string; read_key: string };
  close(): Promise<void>;
}

/**
 * A gateway on the real test store, with backends pointed at closed ports unless given. `extend` may add
 * routes before the app is ready.
 */
export async function startGatewayHarness(
  options: { env?: Record<string, string>; extend?: (app: GatewayApp) => void | Promise<void>; logger?: Logger } = {},
): Promise<GatewayHarness> {
  const config = loadGatewayConfig({
    MONGODB_URL: inject('mongodbUrl'),
    NATS_URL: inject('natsUrl'),
    MONGODB_DATABASE_PREFIX: testDatabasePrefix('gw'),
    WALLET_GRPC_URL: '127.0.0.1:1',
    PAYMENTS_GRPC_URL: '127.0.0.1:1',
    BILLING_GRPC_URL: '127.0.0.1:1',
    EXECUTION_GRPC_URL: '127.0.0.1:1',
    GRPC_DEADLINE_MS: '500',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const clock = new ManualClock('2027-03-01T10:00:00Z');
  const connected = await connectGatewayDependencies(config, {
    clock,
    logger: options.logger ?? createLogger('gateway', { level: 'silent' }),
  });
  const app = await buildGateway(connected.dependencies);
  await options.extend?.(app);
  await app.ready();
  const { customer_id } = await createCustomer(connected.dependencies.store, 'Test customer', clock);
  const full = await issueKey(connected.dependencies.store, customer_id, 'full', clock);
  const read = await issueKey(connected.dependencies.store, customer_id, 'read', clock);
  return {
    app,
    connected,
    config,
    clock,
    customer: { customer_id, full_key: full.key, read_key: read.key },
    async close() {
      await app.close();
      await connected.dependencies.store.database.dropDatabase().catch(() => undefined);
      await connected.close();
    },
  };
}
