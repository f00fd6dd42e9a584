import os from 'node:os';
import type { NatsConnection } from 'nats';
import type { ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import type { AdapterFactory } from './adapter';
import { BrokerClient, SessionPool } from './broker-client';
import { KvClaimStore, type ClaimStore } from './claims';
import type { ConnectorConfig } from './config';
import { ConnectorRuntime, startHealthServer } from './runtime';

/**
 * `start` serves the NATS service and the health endpoint; `stop` stops taking requests, lets the ones in hand
 * finish within the grace, then drains the NATS connection the connector opened.
 */
export interface ConnectorApp extends ServiceApp {
  runtime: ConnectorRuntime;
  sessions: SessionPool;
  nats: NatsConnection;
  /** The health endpoint's port, once started (HEALTH_PORT 0 picks a free one). */
  readonly healthPort: number;
}

/**
 * Wires a connector: NATS connection, JetStream claim bucket (refused here when its settings do not fit the
 * cluster), broker-sim client and session pool. Nothing is served until `start`.
 */
export async function createConnectorApp(options: {
  platform: 'mt4' | 'mt5';
  config: ConnectorConfig;
  logger: Logger;
  adapterFactory: AdapterFactory;
  claims?: ClaimStore;
}): Promise<ConnectorApp> {
  const { platform, config, logger } = options;
  const nats = await connectNats(config.NATS_URL, `connector-${platform}`, logger);
  let connected = true;
  void (async () => {
    for await (const status of nats.status()) {
      if (status.type === 'disconnect' || status.type === 'error') connected = false;
      if (status.type === 'reconnect') connected = true;
    }
  })().catch(() => undefined);
  const claims =
    options.claims ??
    (await KvClaimStore.open(nats, {
      bucket: config.CONNECTOR_CLAIMS_BUCKET,
      ttlMs: config.CONNECTOR_CLAIM_TTL_MS,
      owner: `${platform}@${os.hostname()}:${process.pid}`,
      replicas: config.CONNECTOR_CLAIMS_REPLICAS,
      logger,
    }).catch(async (error: unknown) => {
      await nats.close().catch(() => undefined);
      throw error;
    }));
  const client = new BrokerClient(config.BROKER_SIM_GRPC_URL, {
    terminalIdleMs: config.CONNECTOR_TERMINAL_IDLE_MS,
    terminalStreamCount: config.CONNECTOR_TERMINAL_STREAMS,
  });
  const sessions = new SessionPool(client, platform, {
    sessionsMax: config.CONNECTOR_SESSIONS_MAX,
    sessionIdleMs: config.CONNECTOR_SESSION_IDLE_MS,
    readDeadlineMs: config.BROKER_READ_DEADLINE_MS,
    loginDeadlineMs: config.BROKER_LOGIN_DEADLINE_MS,
  });
  const runtime = new ConnectorRuntime({ platform, config, nats, logger, adapter: options.adapterFactory(client), sessions, claims });
  let health: Awaited<ReturnType<typeof startHealthServer>> | undefined;
  return {
    runtime,
    sessions,
    nats,
    get healthPort() {
      return health?.port ?? 0;
    },
    async start() {
      await runtime.start();
      health = await startHealthServer(config.HEALTH_PORT, config.HOST, () => connected && !nats.isClosed() && runtime.running);
    },
    async stop(graceMs) {
      await runtime.stop(graceMs);
      await health?.close();
      await nats.drain().catch(() => undefined);
      sessions.close();
      client.close();
    },
  };
}
