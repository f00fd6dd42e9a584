import { createConnectorApp, type ConnectorApp } from '@mtx/connector-runtime/app';
import type { ClaimStore } from '@mtx/connector-runtime/claims';
import type { ConnectorConfig } from '@mtx/connector-runtime/config';
import type { Logger } from '@mtx/shared/logger';
import type { NatsConnection } from '@mtx/shared/nats';
import { Mt4Adapter } from './domain/mt4-adapter';

/** The MT4 connector: the shared connector runtime with the MT4 platform adapter, not yet serving. */
export function createConnectorMt4(options: {
  config: ConnectorConfig;
  logger: Logger;
  nats: NatsConnection;
  claims?: ClaimStore;
}): ConnectorApp {
  return createConnectorApp({
    platform: 'mt4',
    config: options.config,
    logger: options.logger,
    nats: options.nats,
    adapter: new Mt4Adapter(),
    ...(options.claims ? { claims: options.claims } : {}),
  });
}
