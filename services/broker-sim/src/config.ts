import { Type, type Static } from '@sinclair/typebox';
import fs from 'node:fs';
import path from 'node:path';
import { baseConfigProperties, metricsPortProperty, loadConfig } from '@mtx/shared/config';
import { defaultDataDirectory } from '@mtx/shared/infra/paths';
import { developmentHostSealKey } from '@mtx/shared/connector/terminal-host';

/** A comma list of connector terminal addresses, `host:port` each (an IPv6 host in brackets). */
const connectorAddressesProperty = (defaultAddress: string) =>
  Type.String({ default: defaultAddress, pattern: '^\\s*[^,\\s]+:\\d{1,5}\\s*(,\\s*[^,\\s]+:\\d{1,5}\\s*)*$' });

export const BrokerSimConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9472),
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50060 }),
  HTTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50061 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  /** Default execution latency of every trade request (benchmarks set 0). */
  BROKER_SIM_LATENCY_MS: Type.Integer({ minimum: 0, default: 20 }),
  /** How often prices move; 0 keeps them still. */
  PRICE_TICK_MS: Type.Integer({ minimum: 0, default: 500 }),
  /** A session unused this long is ended, as a trade server drops idle terminals; they log in again. */
  BROKER_SIM_SESSION_IDLE_MS: Type.Integer({ minimum: 1_000, default: 3_600_000 }),
  /** The data folder (`npm start`'s .data); the journal lives in its broker-sim/ folder. */
  DATA_DIR: Type.String({ default: defaultDataDirectory }),
  /** The terminals hosted (their secrets sealed), kept across restarts; default `<DATA_DIR>/broker-sim/<MONGODB_DATABASE_PREFIX>terminals.json`. */
  BROKER_SIM_TERMINALS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** The connectors' subject root, under which the terminal host protocol runs (the same on execution and the connectors). */
  TERMINAL_SUBJECT_ROOT: Type.String({ default: 'term', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }),
  /** The key execution seals the password and EA token with (see execution's TERMINAL_HOST_SEAL_KEY). Never logged. */
  TERMINAL_HOST_SEAL_KEY: Type.String({ default: developmentHostSealKey }),
  /** The MT4 connectors' terminal listeners, `host:port` comma list (default: a local connector's TERMINAL_LISTEN_PORT). */
  TERMINAL_CONNECTOR_MT4_ADDRESSES: connectorAddressesProperty('127.0.0.1:50080'),
  /** The MT5 connectors' terminal listeners, `host:port` comma list (default: a local connector's TERMINAL_LISTEN_PORT). */
  TERMINAL_CONNECTOR_MT5_ADDRESSES: connectorAddressesProperty('127.0.0.1:50081'),
  /**
   * PEM file of the CA(s) the emulated EAs trust for the connectors' TLS certificates, which must name the host
   * each EA dials; empty: plain TCP, which the EAs use towards loopback addresses only (docs/terminal-bridge.md).
   */
  TERMINAL_TLS_CA_FILE: Type.String({ default: '' }),
  /**
   * The longest wait of a hosted EA between two dials (it doubles from 1 s up to this): small, so that a restarted
   * connector is rejoined within seconds. The reference EAs wait up to 60 s.
   */
  TERMINAL_RECONNECT_MAX_MS: Type.Integer({ minimum: 100, default: 2_000 }),
  /** The journal file itself; default `<DATA_DIR>/broker-sim/<MONGODB_DATABASE_PREFIX>journal.ndjson`. */
  BROKER_SIM_JOURNAL_FILE: Type.Optional(Type.String({ minLength: 1 })),
});

export type BrokerSimConfig = Static<typeof BrokerSimConfigSchema>;

export function loadBrokerSimConfig(environment: NodeJS.ProcessEnv = process.env): BrokerSimConfig {
  return loadConfig(BrokerSimConfigSchema, environment);
}

/** Where the journal is: stacks sharing a data folder are told apart by their database prefix, as in the store. */
export function journalFileOf(config: BrokerSimConfig): string {
  return config.BROKER_SIM_JOURNAL_FILE ?? path.join(config.DATA_DIR, 'broker-sim', `${config.MONGODB_DATABASE_PREFIX}journal.ndjson`);
}

/** Where the hosted terminals are kept, beside the journal. */
export function terminalsFileOf(config: BrokerSimConfig): string {
  return config.BROKER_SIM_TERMINALS_FILE ?? path.join(config.DATA_DIR, 'broker-sim', `${config.MONGODB_DATABASE_PREFIX}terminals.json`);
}

/** The TLS the emulated EAs dial with: the trusted CA read from TERMINAL_TLS_CA_FILE, or none (loopback only). */
export function terminalTlsOf(config: Partial<Pick<BrokerSimConfig, 'TERMINAL_TLS_CA_FILE'>>): { ca: Buffer } | undefined {
  return config.TERMINAL_TLS_CA_FILE ? { ca: fs.readFileSync(config.TERMINAL_TLS_CA_FILE) } : undefined;
}

/** `a:1, b:2` → ['a:1', 'b:2']. */
export function addressList(setting: string): string[] {
  return setting
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address.length > 0);
}
