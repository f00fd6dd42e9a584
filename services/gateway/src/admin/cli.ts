/**
 * Operator CLI: `npm run admin -- <command> [flags]`. It talks to the running stack's store (and, to
 * connect accounts, to the execution service). Addresses come from the environment, else from
 * .data/dev.json written by `npm start`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { defaultDataDirectory } from '@mtx/shared/infra/paths';
import { AppError } from '@mtx/shared/errors';
import { createGatewayStore, ensureGatewayIndexes } from '../store/gateway-store';
import { connectDemoAccounts, createCustomerWithKeys, createKey, parseAccountSpec, revoke } from './commands';
import { connectService } from '@mtx/shared/grpc-services';

const usage = `usage: npm run admin -- <command> [flags]

commands:
  customer:create --name <name> [--accounts mt4:2,mt5:2]   create a customer with a full and a read-only key
  key:create --customer <customer_id> [--level full|read]    issue another key
  key:revoke --key <key_id or key>                           revoke a key

environment: MONGODB_URL, MONGODB_DATABASE_PREFIX, EXECUTION_GRPC_URL, NATS_URL (default: from ${path.relative(process.cwd(), path.join(defaultDataDirectory, 'dev.json'))})`;

interface DevFile {
  nats_url?: string;
  mongodb_url?: string;
  mongodb_database_prefix?: string;
  execution_grpc_url?: string;
}

function readDevFile(): DevFile {
  const file = path.join(defaultDataDirectory, 'dev.json');
  if (!fs.existsSync(file)) return {};
  return JSON.parse(fs.readFileSync(file, 'utf8')) as DevFile;
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      accounts: { type: 'string' },
      customer: { type: 'string' },
      level: { type: 'string' },
      key: { type: 'string' },
    },
    strict: true,
  });
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const devFile = readDevFile();
  const mongodbUrl = process.env.MONGODB_URL ?? devFile.mongodb_url;
  if (!mongodbUrl) throw new Error('no store: set MONGODB_URL or run `npm start` first (it writes .data/dev.json)');
  const prefix = process.env.MONGODB_DATABASE_PREFIX ?? devFile.mongodb_database_prefix ?? 'mtx_';
  const mongo = await connectMongo(mongodbUrl);
  try {
    const store = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
    await ensureGatewayIndexes(store);
    let output: unknown;
    switch (command) {
      case 'customer:create': {
        if (!values.name) throw new Error('customer:create needs --name');
        const plan = parseAccountSpec(values.accounts);
        const customer = await createCustomerWithKeys(store, values.name);
        let accounts: Awaited<ReturnType<typeof connectDemoAccounts>> = [];
        if (plan.length > 0) {
          const address = process.env.EXECUTION_GRPC_URL ?? devFile.execution_grpc_url;
          if (!address) throw new Error('--accounts needs the running stack: set EXECUTION_GRPC_URL or run `npm start`');
          const execution = connectService('execution', address, 15_000);
          try {
            accounts = await connectDemoAccounts(execution, customer.customer_id, plan);
          } finally {
            execution.close();
          }
        }
        output = { ...customer, accounts };
        break;
      }
      case 'key:create': {
        if (!values.customer) throw new Error('key:create needs --customer');
        const level = values.level ?? 'full';
        if (level !== 'full' && level !== 'read') throw new Error('--level is full or read');
        const issued = await createKey(store, values.customer, level);
        output = { customer_id: issued.customer_id, key_id: issued.key_id, level: issued.level, key: issued.key };
        break;
      }
      case 'key:revoke': {
        if (!values.key) throw new Error('key:revoke needs --key');
        const natsUrl = process.env.NATS_URL ?? devFile.nats_url;
        // The announcement makes every gateway forget the key at once; without it they do within API_KEY_CACHE_MS.
        const nats = natsUrl
          ? await connectNats(natsUrl, 'admin', createLogger('admin', { level: 'silent' }), {
              maxReconnectAttempts: 0,
              timeout: 2_000,
            }).catch(() => undefined)
          : undefined;
        try {
          output = await revoke(store, values.key, nats);
        } finally {
          await nats?.close().catch(() => undefined);
        }
        if (!(output as { announced: boolean }).announced)
          process.stderr.write(
            'admin: revoked in the store, but not announced over NATS: gateways stop accepting the key within API_KEY_CACHE_MS\n',
          );
        break;
      }
      default:
        throw new Error(`unknown command ${command}\n${usage}`);
    }
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  } finally {
    await mongo.close();
  }
}

main().catch((error: unknown) => {
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : (error as Error).message;
  process.stderr.write(`admin: ${message}\n`);
  process.exit(1);
});
