import os from 'node:os';
import type { NatsConnection } from 'nats';
import type { ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { AdapterFactory } from './adapter';
import { BrokerClient, SessionPool } from './broker-client';
import { KvClaimStore, type ClaimStore } from './claims';
import type { ConnectorConfig } from './config';
import { ConnectorRuntime, startHealthServer } from './runtime';

/**
 * `start` opens the claim bucket, serves the NATS service and the health endpoint; `stop` stops taking requests
 * and lets the ones in hand finish within the grace. The NATS connection is the caller's: it stays open.
 */
export interface ConnectorApp extends ServiceApp {
  runtime: ConnectorRuntime;
  sessions: SessionPool;
  nats: NatsConnection;
  /** The health endpoint's port, once started (HEALTH_PORT 0 picks a free one). */
  readonly healthPort: number;
}

/**
 * Wires a connector over the NATS connection it is given: the broker-sim client and session pool, and the
 * JetStream claim bucket, opened by `start` (which refuses settings that do not fit the cluster). Building it
 * asks NATS nothing and dials nothing.
 */
export function createConnectorApp(options: {
  platform: 'mt4' | 'mt5';
  config: ConnectorConfig;
  logger: Logger;
  nats: NatsConnection;
  adapterFactory: AdapterFactory;
  claims?: ClaimStore;
}): ConnectorApp {
  const { platform, config, logger, nats } = options;
  let connected = true;
  let bucket: ClaimStore | undefined = options.claims;
  // The runtime claims only while serving, which `start` begins once the bucket is open.
  const claims: ClaimStore = {
    claim(clientId, retryUntilUnixMs) {
      if (!bucket) return Promise.reject(new Error('the claims bucket is not open: start the connector first'));
      return bucket.claim(clientId, retryUntilUnixMs);
    },
  };
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
  let watchingStatus = false;
  return {
    runtime,
    sessions,
    nats,
    get healthPort() {
      return health?.port ?? 0;
    },
    async start() {
      if (!watchingStatus) {
        watchingStatus = true;
        void (async () => {
          for await (const status of nats.status()) {
            if (status.type === 'disconnect' || status.type === 'error') connected = false;
            if (status.type === 'reconnect') connected = true;
          }
        })().catch(() => undefined);
      }
      bucket ??= await KvClaimStore.open(nats, {
        bucket: config.CONNECTOR_CLAIMS_BUCKET,
        ttlMs: config.CONNECTOR_CLAIM_TTL_MS,
        owner: `${platform}@${os.hostname()}:${process.pid}`,
        replicas: config.CONNECTOR_CLAIMS_REPLICAS,
        logger,
      });
      await runtime.start();
      health = await startHealthServer(config.HEALTH_PORT, config.HOST, () => connected && !nats.isClosed() && runtime.running);
    },
    async stop(graceMs) {
      await runtime.stop(graceMs);
      await health?.close();
      sessions.close();
      client.close();
    },
  };
}
