import { createConnectorApp, type ConnectorApp } from '@mtx/connector-runtime/app';
import type { ClaimStore } from '@mtx/connector-runtime/claims';
import type { ConnectorConfig } from '@mtx/connector-runtime/config';
import type { Logger } from '@mtx/shared/logger';
import type { NatsConnection } from '@mtx/shared/nats';
import { Mt5Adapter } from './domain/mt5-adapter';

/** The MT5 connector: the shared connector runtime with the MT5 platform adapter, not yet serving. */
export function createConnectorMt5(options: {
  config: ConnectorConfig;
  logger: Logger;
  nats: NatsConnection;
  claims?: ClaimStore;
}): ConnectorApp {
  return createConnectorApp({
    platform: 'mt5',
    config: options.config,
    logger: options.logger,
    nats: options.nats,
    adapter: new Mt5Adapter(),
    ...(options.claims ? { claims: options.claims } : {}),
  });
}
