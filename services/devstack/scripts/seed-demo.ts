/**
 * Creates the demo customer (full and read-only keys, MT4 and MT5 accounts on two brokers) once, and writes
 * .data/dev.json. A later run reuses the customer if the store still has it. Also runnable on its own
 * (docker compose's seed job): `tsx services/devstack/scripts/seed-demo.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import type { LocalInfrastructure } from '../src/local';
import { defaultDataDirectory } from '@mtx/shared/infra/paths';
import type { Stack } from '../src/services';
import { connectDemoAccounts, createCustomerWithKeys, type DemoAccount } from '@mtx/gateway/src/admin/commands';
import { createGatewayStore, ensureGatewayIndexes } from '@mtx/gateway/src/store/gateway-store';
import { hashKey } from '@mtx/gateway/src/domain/keys';
import { connectService } from '@mtx/shared/grpc-services';

export interface DevFile {
  base_url: string;
  full_key: string;
  read_key: string;
  sandbox_url: string;
  customer_id: string;
  accounts: DemoAccount[];
  mongodb_url: string;
  mongodb_database_prefix: string;
  nats_url: string;
  execution_grpc_url: string;
  wallet_grpc_url: string;
  created_at: string;
}

interface SeedOptions {
  gatewayUrl: string;
  sandboxUrl: string;
  mongodbUrl: string;
  natsUrl: string;
  databasePrefix: string;
  executionAddress: string;
  walletAddress: string;
  dataDirectory: string;
  log: (line: string) => void;
}

export async function seedDemoCustomer(options: SeedOptions): Promise<DevFile> {
  const file = path.join(options.dataDirectory, 'dev.json');
  const mongo = await connectMongo(options.mongodbUrl);
  try {
    const store = createGatewayStore(mongo.db(databaseName(options.databasePrefix, 'gateway')));
    await ensureGatewayIndexes(store);
    if (fs.existsSync(file)) {
      const previous = JSON.parse(fs.readFileSync(file, 'utf8')) as DevFile;
      const key = await store.apiKeys.findOne({ _id: hashKey(previous.full_key) });
      if (key && !key.revoked_at && key.customer_id === previous.customer_id) {
        // Same data, new ports: keep the customer and keys, refresh the addresses.
        const refreshed: DevFile = {
          ...previous,
          base_url: options.gatewayUrl,
          sandbox_url: options.sandboxUrl,
          mongodb_url: options.mongodbUrl,
          nats_url: options.natsUrl,
          execution_grpc_url: options.executionAddress,
          wallet_grpc_url: options.walletAddress,
        };
        fs.writeFileSync(file, `${JSON.stringify(refreshed, null, 2)}\n`, { mode: 0o600 });
        options.log(`demo customer ${previous.customer_id} kept from the previous run`);
        return refreshed;
      }
    }
    const customer = await createCustomerWithKeys(store, 'Demo customer');
    const execution = connectService('execution', options.executionAddress, 15_000);
    let accounts: DemoAccount[];
    try {
      accounts = await connectDemoAccounts(execution, customer.customer_id, [
        { platform: 'mt4', count: 2 },
        { platform: 'mt5', count: 2 },
      ]);
    } finally {
      execution.close();
    }
    const devFile: DevFile = {
      base_url: options.gatewayUrl,
      full_key: customer.full_key,
      read_key: customer.read_key,
      sandbox_url: options.sandboxUrl,
      customer_id: customer.customer_id,
      accounts,
      mongodb_url: options.mongodbUrl,
      mongodb_database_prefix: options.databasePrefix,
      nats_url: options.natsUrl,
      execution_grpc_url: options.executionAddress,
      wallet_grpc_url: options.walletAddress,
      created_at: new Date().toISOString(),
    };
    fs.mkdirSync(options.dataDirectory, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(devFile, null, 2)}\n`, { mode: 0o600 });
    options.log(`demo customer ${customer.customer_id} created with ${accounts.length} accounts`);
    return devFile;
  } finally {
    await mongo.close();
  }
}

export async function ensureDemoCustomer({
  stack,
  infrastructure,
  dataDirectory,
  log,
}: {
  stack: Stack;
  infrastructure: LocalInfrastructure;
  dataDirectory: string;
  log: (line: string) => void;
}): Promise<DevFile> {
  return seedDemoCustomer({
    gatewayUrl: stack.gatewayUrl,
    sandboxUrl: stack.sandboxUrl,
    mongodbUrl: infrastructure.mongodbUrl,
    natsUrl: infrastructure.natsUrl,
    databasePrefix: stack.env.MONGODB_DATABASE_PREFIX ?? 'mtx_',
    executionAddress: stack.env.EXECUTION_GRPC_URL!,
    walletAddress: stack.env.WALLET_GRPC_URL!,
    dataDirectory,
    log,
  });
}

if (require.main === module) {
  const environment = process.env;
  seedDemoCustomer({
    gatewayUrl: environment.PUBLIC_BASE_URL ?? environment.GATEWAY_URL ?? 'http://127.0.0.1:8080',
    sandboxUrl: environment.CRYPTO_SANDBOX_URL ?? 'http://127.0.0.1:8090',
    mongodbUrl: environment.MONGODB_URL ?? 'mongodb://127.0.0.1:27017/',
    natsUrl: environment.NATS_URL ?? 'nats://127.0.0.1:4222',
    databasePrefix: environment.MONGODB_DATABASE_PREFIX ?? 'mtx_',
    executionAddress: environment.EXECUTION_GRPC_URL ?? '127.0.0.1:50054',
    walletAddress: environment.WALLET_GRPC_URL ?? '127.0.0.1:50051',
    dataDirectory: environment.DATA_DIR ?? defaultDataDirectory,
    log: (line) => process.stderr.write(`[seed] ${line}\n`),
  }).then(
    (devFile) => process.stdout.write(`${JSON.stringify(devFile, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`[seed] failed: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
