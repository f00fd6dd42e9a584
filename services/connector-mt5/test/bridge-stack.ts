import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { KV } from 'nats';
import type { ConnectorApp } from '@mtx/connector-runtime/app';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { systemClock } from '@mtx/shared/clock';
import { connectorCodecs, type ConnectorOp, terminalSubject } from '@mtx/shared/connector/messages';
import { encodeRegistryEntry, registryKeyOf, tokenSha256Hex } from '@mtx/shared/connector/terminal-registry';
import { createLogger } from '@mtx/shared/logger';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { Broker } from '../../broker-sim/src/app/broker';
import { PriceFeed } from '../../broker-sim/src/domain/prices';
import { FileJournal } from '../../broker-sim/src/store/journal';
import { TerminalFleet } from '../../broker-sim/src/terminal/terminal-fleet';
import type { TerminalLink } from '../../broker-sim/src/terminal/terminal-link';
import { createConnectorMt4 } from '../../connector-mt4/src/app';
import { createConnectorMt5 } from '../src/app';

/**
 * Connectors in this process against broker-sim's emulated terminals (services/broker-sim/src/terminal), over
 * a real nats-server: the registry entries are written into the bucket as execution would write them, and each
 * emulated EA dials the connectors' terminal ports as a real EA would (docs/terminal-bridge.md).
 */
export interface BridgeStack {
  nats: NatsConnection;
  subjectRoot: string;
  registry: KV;
  claims: KV;
  broker: Broker;
  connector(platform: 'mt4' | 'mt5'): Promise<ConnectorApp>;
  register(platform: 'mt4' | 'mt5', accountId: string, server: string, login: string, token: string): Promise<void>;
  terminal(server: string, login: string, token: string, connectors: ConnectorApp[]): TerminalLink;
  request(platform: 'mt4' | 'mt5', accountId: string, op: ConnectorOp, payload: Uint8Array, timeoutMs?: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

export const logger = createLogger('connector-bridge-test', { level: 'silent' });

export function newToken(): string {
  return `tk_${crypto.randomBytes(24).toString('base64url')}`;
}

export async function startBridgeStack(label: string): Promise<BridgeStack> {
  const unique = `${label}${process.pid}${crypto.randomBytes(3).toString('hex')}`;
  const subjectRoot = `t${unique}`;
  const nats = await connectNats(inject('natsUrl'), `connector-test-${label}`, logger);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), `connector-${label}-`));
  const journal = await FileJournal.open(path.join(directory, 'journal.ndjson'), logger);
  const broker = new Broker({ journal, clock: systemClock, logger, latencyMs: 0, prices: new PriceFeed(() => 0.5) });
  broker.load();
  const fleet = new TerminalFleet(broker, logger, { backoffInitialMs: 100, backoffMaxMs: 400 });
  const environment = {
    NATS_URL: inject('natsUrl'),
    TERMINAL_SUBJECT_ROOT: subjectRoot,
    TERMINAL_LISTEN_PORT: '0',
    HEALTH_PORT: '0',
    HOST: '127.0.0.1',
    TERMINAL_REGISTRY_BUCKET: `reg_${unique}`,
    CONNECTOR_CLAIMS_BUCKET: `claims_${unique}`,
    BROKER_READ_DEADLINE_MS: '2000',
  };
  const apps: ConnectorApp[] = [];
  const connector = async (platform: 'mt4' | 'mt5') => {
    const config = loadConnectorConfig(platform, environment);
    const app = platform === 'mt5' ? createConnectorMt5({ config, logger, nats }) : createConnectorMt4({ config, logger, nats });
    await app.start();
    apps.push(app);
    return app;
  };
  // The buckets exist once a connector has opened them.
  const first = await connector('mt5');
  const registry = await nats.jetstream().views.kv(environment.TERMINAL_REGISTRY_BUCKET);
  const claims = await nats.jetstream().views.kv(environment.CONNECTOR_CLAIMS_BUCKET);
  await first.stop(100);
  apps.splice(0);
  return {
    nats,
    subjectRoot,
    registry,
    claims,
    broker,
    connector,
    async register(platform, accountId, server, login, token) {
      const entry = { account_id: accountId, platform, server, login, token_sha256: tokenSha256Hex(token) };
      await registry.put(registryKeyOf(entry), encodeRegistryEntry(entry));
    },
    terminal(server, login, token, connectors) {
      const addresses = connectors.map((app) => `127.0.0.1:${app.terminalPort}`);
      return fleet.start({ server, login, password: 'secret', token, addresses });
    },
    async request(platform, accountId, op, payload, timeoutMs = 5_000) {
      const reply = await nats.request(terminalSubject(subjectRoot, platform, accountId, op), payload, { timeout: timeoutMs });
      return reply.data;
    },
    async close() {
      await fleet.close(200);
      await Promise.all(apps.map((app) => app.stop(500)));
      await nats.drain().catch(() => undefined);
      await journal.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const endAt = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > endAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export { connectorCodecs };
