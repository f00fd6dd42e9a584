import os from 'node:os';
import type { NatsConnection } from 'nats';
import type { ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { PlatformAdapter } from './adapter';
import type { TerminalDirectory } from './bridge/terminal-admission';
import { TerminalServer } from './bridge/terminal-server';
import { terminalServerSettings } from './bridge/terminal-server-settings';
import { KvClaimStore, type ClaimStore } from './claims';
import { watchClaimsReplicas } from './claims-replicas';
import type { ConnectorConfig } from './config';
import { ConnectorRuntime, startHealthServer } from './runtime';
import { TerminalAccess } from './terminal-access';
import { RegistryDirectory } from './terminal-directory';

/**
 * `start` opens the claims and terminal registry buckets, serves the health endpoint and opens the terminal
 * listener (docs/terminal-bridge.md); each terminal admitted routes its account's NATS requests here. `stop`
 * unroutes every account, lets the requests in hand finish within the grace and says `bye` to the terminals.
 * The NATS connection is the caller's: it stays open.
 */
export interface ConnectorApp extends ServiceApp {
  runtime: ConnectorRuntime;
  terminals: TerminalServer;
  nats: NatsConnection;
  /** The health endpoint's port, once started (HEALTH_PORT 0 picks a free one). */
  readonly healthPort: number;
  /** The terminal listener's port, once started (TERMINAL_LISTEN_PORT 0 picks a free one). */
  readonly terminalPort: number;
}

/**
 * Wires a connector over the NATS connection it is given: the terminal listener, the runtime and the JetStream
 * buckets, opened by `start` (which refuses settings that do not fit the cluster). Building it asks NATS
 * nothing and listens on nothing.
 */
export function createConnectorApp(options: {
  platform: 'mt4' | 'mt5';
  config: ConnectorConfig;
  logger: Logger;
  nats: NatsConnection;
  adapter: PlatformAdapter;
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
  let registry: RegistryDirectory | undefined;
  let claimsReplicas: { stop(): void } | undefined;
  // A hello before the registry is open is refused `unavailable` (the admission's directory failure); the EA redials.
  const directory: TerminalDirectory = {
    lookup(identity) {
      if (!registry) return Promise.reject(new Error('the terminal registry is not open yet'));
      return registry.lookup(identity);
    },
  };
  let runtime: ConnectorRuntime | undefined;
  const terminals = new TerminalServer(terminalServerSettings(config), {
    directory,
    logger,
    events: {
      attached: ({ accountId }) => {
        if (!runtime) throw new Error('the connector is not built yet');
        return runtime.attachAccount(accountId);
      },
      detached: ({ accountId }) => runtime?.detachAccount(accountId),
    },
  });
  runtime = new ConnectorRuntime({
    platform,
    config,
    nats,
    logger,
    adapter: options.adapter,
    terminals: new TerminalAccess(terminals),
    claims,
  });
  const started = runtime;
  let health: Awaited<ReturnType<typeof startHealthServer>> | undefined;
  let terminalPort = 0;
  let watchingStatus = false;
  return {
    runtime: started,
    terminals,
    nats,
    get healthPort() {
      return health?.port ?? 0;
    },
    get terminalPort() {
      return terminalPort;
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
      claimsReplicas ??= watchClaimsReplicas(nats, config.CONNECTOR_CLAIMS_BUCKET, config.CONNECTOR_CLAIMS_REPLICAS);
      registry ??= await RegistryDirectory.open(nats, {
        bucket: config.TERMINAL_REGISTRY_BUCKET,
        replicas: config.TERMINAL_REGISTRY_REPLICAS,
        lookupDeadlineMs: config.TERMINAL_LOOKUP_DEADLINE_MS,
      });
      await started.start();
      terminalPort = await terminals.start();
      health = await startHealthServer(config.HEALTH_PORT, config.HOST, () => connected && !nats.isClosed() && started.running);
    },
    async stop(graceMs) {
      const endAt = Date.now() + graceMs;
      claimsReplicas?.stop();
      claimsReplicas = undefined;
      await started.stop(graceMs);
      await health?.close();
      await terminals.close(Math.max(0, endAt - Date.now()));
    },
  };
}
