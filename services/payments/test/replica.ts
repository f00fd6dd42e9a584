import { inject } from 'vitest';
import type { UnaryClient } from '@mtx/shared/grpc';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import type { NatsConnection } from '@mtx/shared/nats';
import { inboxSweepIntervalMs, testPostbackSecret, type WalletStack } from '../../../test/e2e/wallet-stack';
import { createPaymentsApp, type PaymentsApp } from '../src/app';
import { loadPaymentsConfig } from '../src/config';
import type { PaymentProvider } from '../src/providers/provider';
import { createSandboxProvider } from '../src/providers/sandbox';

export interface ReplicaOptions {
  environment?: NodeJS.ProcessEnv;
  wallet?: (real: UnaryClient<any>) => UnaryClient<any>;
  provider?: (real: PaymentProvider) => PaymentProvider;
  /** Given: a store client of its own, instead of the stack's, that tells this of every command it sends. */
  onCommand?: (command: StoreCommand) => void;
  /** Its NATS connection; the stack's unless given. */
  nats?: NatsConnection;
  /** False: it neither broadcasts its changes to other replicas' read caches nor hears theirs. Default true. */
  announceChanges?: boolean;
}

export interface StoreCommand {
  name: string;
  collection: string;
  filter: unknown;
}

export interface Replica {
  app: PaymentsApp;
  close(): Promise<void>;
}

/**
 * Another payments replica on the stack's store, provider and wallet, built and not started (its crediting
 * worker runs only when a test starts it), as a second process of the service would be.
 */
export async function startReplica(stack: WalletStack, options: ReplicaOptions = {}): Promise<Replica> {
  let mongo: MongoClient | undefined;
  const { onCommand } = options;
  if (onCommand) {
    mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
    mongo.on('commandStarted', (event) => {
      const command = event.command as Record<string, unknown> & { filter?: unknown };
      onCommand({ name: event.commandName, collection: String(command[event.commandName]), filter: command.filter });
    });
  }
  const config = loadPaymentsConfig({
    // Started below so that it follows the other replicas' announcements; its crediting is the test's to start.
    PAYMENTS_CREDITING_ENABLED: 'false',
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    ...options.environment,
    HOOKS_PORT: '0',
    HOOKS_HOST: '127.0.0.1',
    MONGODB_DATABASE_PREFIX: stack.prefix,
    CRYPTO_SANDBOX_URL: stack.sandboxUrl,
    POSTBACK_SECRET: testPostbackSecret,
    PAYMENTS_INBOX_SWEEP_INTERVAL_MS: String(inboxSweepIntervalMs),
  });
  const provider = createSandboxProvider({
    baseUrl: stack.sandboxUrl,
    apiKey: config.SANDBOX_API_KEY,
    postbackSecret: testPostbackSecret,
    timeoutMs: 5_000,
  });
  const app = await createPaymentsApp({
    config,
    database: (mongo ?? stack.mongo).db(databaseName(stack.prefix, 'payments')),
    clock: stack.clock,
    logger: createLogger('payments', { level: 'silent' }),
    wallet: options.wallet ? options.wallet(stack.walletClient) : stack.walletClient,
    providers: [options.provider ? options.provider(provider) : provider],
    nats: options.nats ?? stack.nats,
    announceChanges: options.announceChanges !== false,
    backgroundWork: false,
  });
  await app.start();
  return {
    app,
    async close() {
      await app.stop(0);
      await mongo?.close();
    },
  };
}
