import os from 'node:os';
import type { NatsConnection } from 'nats';
import type { Logger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import type { AdapterFactory } from './adapter';
import { BrokerClient, SessionPool } from './broker-client';
import { KvClaimStore, type ClaimStore } from './claims';
import type { ConnectorConfig } from './config';
import { ConnectorRuntime, startHealthServer } from './runtime';

export interface ConnectorApp {
  runtime: ConnectorRuntime;
  sessions: SessionPool;
  nats: NatsConnection;
  healthPort: number;
  close(graceMs?: number): Promise<void>;
}

/**
 * Wires a connector: NATS connection, JetStream claim bucket, broker-sim client and session pool, the NATS
 * service and the health endpoint. Shutdown stops taking requests, lets the ones in hand finish within the
 * grace, then drains NATS.
 */
export async function startConnectorApp(options: {
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
  const client = new BrokerClient(config.BROKER_SIM_GRPC_URL);
  const sessions = new SessionPool(client, platform, {
    sessionsMax: config.CONNECTOR_SESSIONS_MAX,
    loginDeadlineMs: config.BROKER_LOGIN_DEADLINE_MS,
  });
  const runtime = new ConnectorRuntime({ platform, config, nats, logger, adapter: options.adapterFactory(client), sessions, claims });
  await runtime.start();
  const health = await startHealthServer(config.HEALTH_PORT, config.HOST, () => connected && !nats.isClosed() && runtime.running);
  return {
    runtime,
    sessions,
    nats,
    healthPort: health.port,
    async close(graceMs = config.SHUTDOWN_GRACE_MS) {
      await runtime.stop(graceMs);
      await health.close();
      await nats.drain().catch(() => undefined);
      client.close();
    },
  };
}
