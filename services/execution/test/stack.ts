import { connectService } from '@mtx/shared/grpc-services';
import crypto from 'node:crypto';
import path from 'node:path';
import { inject } from 'vitest';
import { freePort } from '@mtx/devstack/ports';
import type { ConnectorApp } from '@mtx/connector-runtime/app';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { developmentHostSealKey } from '@mtx/shared/connector/terminal-host';
import { createBrokerSimApp, type BrokerSimApp } from '../../broker-sim/src/app';
import { createConnectorMt4 } from '../../connector-mt4/src/app';
import { createConnectorMt5 } from '../../connector-mt5/src/app';
import { createExecutionApp, type ExecutionApp } from '../src/app';
import { loadExecutionConfig } from '../src/config';
import { executionDatabaseNames } from '../src/store/execution-store';

export interface ExecutionStack {
  prefix: string;
  subjectRoot: string;
  mongo: MongoClient;
  nats: NatsConnection;
  broker: BrokerSimApp;
  execution: ExecutionApp;
  client: UnaryClient<any>;
  executionAddress: string;
  brokerGrpcAddress: string;
  connectors: { mt4?: ConnectorApp; mt5?: ConnectorApp };
  connectorEnv: Record<string, string>;
  control<T = any>(path: string, method?: string, body?: unknown): Promise<{ status: number; body: T }>;
  startConnector(platform: 'mt4' | 'mt5'): Promise<ConnectorApp>;
  stopConnector(platform: 'mt4' | 'mt5'): Promise<void>;
  close(): Promise<void>;
}

const silent = createLogger('test', { level: 'silent' });

/**
 * broker-sim, both connectors and execution in this process, on real sockets, real NATS and the real store,
 * isolated by a database prefix and a NATS subject root of their own.
 */
export async function startExecutionStack(options: {
  label: string;
  latencyMs?: number;
  executionEnv?: Record<string, string>;
  connectorEnv?: Record<string, string>;
}): Promise<ExecutionStack> {
  const prefix = testDatabasePrefix(options.label);
  const subjectRoot = `t${crypto.randomBytes(5).toString('hex')}`;
  const mongo = await connectMongo(inject('mongodbUrl'));
  const natsUrl = inject('natsUrl');
  const journalFile = path.join(inject('infrastructureDirectory'), 'broker-sim', `${prefix}journal.ndjson`);
  // Each connector's terminal listener gets its port up front: broker-sim, the terminal host, dials them.
  const terminalPorts = { mt4: await freePort(), mt5: await freePort() };
  const broker = createBrokerSimApp({
    config: {
      BROKER_SIM_LATENCY_MS: options.latencyMs ?? 0,
      PRICE_TICK_MS: 0,
      GRPC_PORT: 0,
      HTTP_PORT: 0,
      HOST: '127.0.0.1',
      NATS_URL: natsUrl,
      TERMINAL_SUBJECT_ROOT: subjectRoot,
      TERMINAL_HOST_SEAL_KEY: developmentHostSealKey,
      TERMINAL_CONNECTOR_MT4_ADDRESSES: `127.0.0.1:${terminalPorts.mt4}`,
      TERMINAL_CONNECTOR_MT5_ADDRESSES: `127.0.0.1:${terminalPorts.mt5}`,
      // A connector the tests stop and start again is rejoined within a second.
      TERMINAL_RECONNECT_MAX_MS: 500,
    },
    journalFile,
    terminalsFile: path.join(path.dirname(journalFile), `${prefix}terminals.json`),
    logger: silent,
  });
  await broker.start();
  const ports = broker.ports;
  const brokerGrpcAddress = `127.0.0.1:${ports.grpcPort}`;
  const connectorEnv = {
    NATS_URL: natsUrl,
    HEALTH_PORT: '0',
    HOST: '127.0.0.1',
    TERMINAL_SUBJECT_ROOT: subjectRoot,
    LOG_LEVEL: 'silent',
    ...options.connectorEnv,
  };
  const connectors: ExecutionStack['connectors'] = {};
  // Each connector has its own NATS connection, as its process would: stopping one drops it.
  const connectorConnections: { mt4?: NatsConnection; mt5?: NatsConnection } = {};
  const startConnector = async (platform: 'mt4' | 'mt5') => {
    const config = loadConnectorConfig(platform, { ...connectorEnv, TERMINAL_LISTEN_PORT: String(terminalPorts[platform]) });
    const connection = await connectNats(natsUrl, `connector-${platform}`, silent);
    const create = platform === 'mt4' ? createConnectorMt4 : createConnectorMt5;
    const app = create({ config, logger: silent, nats: connection });
    await app.start().catch(async (error: unknown) => {
      await connection.close();
      throw error;
    });
    connectors[platform] = app;
    connectorConnections[platform] = connection;
    return app;
  };
  const stopConnector = async (platform: 'mt4' | 'mt5') => {
    await connectors[platform]?.stop(1_000);
    await connectorConnections[platform]?.drain().catch(() => undefined);
    delete connectors[platform];
    delete connectorConnections[platform];
  };
  await Promise.all([startConnector('mt4'), startConnector('mt5')]);
  const nats = await connectNats(natsUrl, 'execution-test', silent);
  const config = loadExecutionConfig({
    MONGODB_DATABASE_PREFIX: prefix,
    SEATS_REQUIRED: 'false',
    TERMINAL_SUBJECT_ROOT: subjectRoot,
    EXECUTION_DEADLINE_MS: '1500',
    // broker-sim's first login of a login runs scrypt twice (create, then check): on a loaded two-core CI machine
    // 800 ms was missed once by a ping. No test here waits for a ping to time out.
    PING_DEADLINE_MS: '3000',
    RECONCILE_INTERVAL_MS: '0',
    RECONCILE_SETTLE_AFTER_MS: '200',
    ACCOUNT_CACHE_MS: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: '0',
    ...options.executionEnv,
  });
  // As execution's main does: with seats required, the billing client is the caller's to make and close.
  const billing = config.SEATS_REQUIRED ? connectService('billing', config.BILLING_GRPC_URL, config.GRPC_DEADLINE_MS) : undefined;
  const execution = createExecutionApp({
    config,
    database: mongo.db(databaseName(prefix, 'execution')),
    nats,
    logger: silent,
    ...(billing ? { billing } : {}),
  });
  await execution.start();
  const executionAddress = `127.0.0.1:${execution.port}`;
  const client = createUnaryClient<any>('execution/v1/execution.proto', 'mtx.execution.v1.ExecutionService', executionAddress, 10_000);
  const controlUrl = `http://127.0.0.1:${ports.httpPort}`;
  return {
    prefix,
    subjectRoot,
    mongo,
    nats,
    broker,
    execution,
    client,
    executionAddress,
    brokerGrpcAddress,
    connectors,
    connectorEnv,
    async control(path, method = 'GET', body) {
      const response = await fetch(`${controlUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    },
    startConnector,
    stopConnector,
    async close() {
      client.close();
      await execution.stop(1_000);
      billing?.close();
      for (const platform of ['mt4', 'mt5'] as const) await stopConnector(platform);
      await broker.stop(1_000);
      await nats.close();
      for (const name of executionDatabaseNames(databaseName(prefix, 'execution')))
        await mongo
          .db(name)
          .dropDatabase()
          .catch(() => undefined);
      await mongo.close();
    },
  };
}

/** The response fields of a proto message without the synthetic `_field` markers of proto3 optionals. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (key, item) => (key.startsWith('_') ? undefined : item))) as T;
}
