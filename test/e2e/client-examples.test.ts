import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUnaryClient } from '@mtx/shared/grpc';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { startStack, type Stack } from '@mtx/devstack/services';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { eventually, testDatabasePrefix } from '@mtx/shared/testing';
import { connectDemoAccounts, createCustomerWithKeys, type DemoAccount } from '../../services/gateway/src/admin/commands';
import { createGatewayStore, ensureGatewayIndexes } from '../../services/gateway/src/store/gateway-store';
import { MtxClient } from '../../services/client/src/client';
import { verifyWebhook } from '../../services/client/src/webhooks';

/**
 * The client package against the real stack (every service as its own process): the three examples run
 * as a user would run them, the operator CLI prints its tables, and idempotent replays hold end to end.
 */
const prefix = testDatabasePrefix('clientex');
let stack: Stack;
let mongo: MongoClient;
let customer: { full_key: string; read_key: string; accounts: DemoAccount[] };
let environment: NodeJS.ProcessEnv;

beforeAll(async () => {
  stack = await startStack({
    mongodbUrl: inject('mongodbUrl'),
    natsUrl: inject('natsUrl'),
    dataDirectory: inject('infrastructureDirectory'),
    // The NATS server is shared with the other test files: terminals answer on subjects of this stack only.
    env: {
      MONGODB_DATABASE_PREFIX: prefix,
      TERMINAL_SUBJECT_ROOT: prefix.replace(/_/g, ''),
      LOG_LEVEL: 'warn',
      BROKER_SIM_LATENCY_MS: '0',
    },
  });
  mongo = await connectMongo(inject('mongodbUrl'));
  const store = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
  await ensureGatewayIndexes(store);
  const created = await createCustomerWithKeys(store, 'Client examples');
  const execution = createUnaryClient<any>(
    'execution/v1/execution.proto',
    'mtx.execution.v1.ExecutionService',
    stack.env.EXECUTION_GRPC_URL!,
    15_000,
  );
  try {
    const accounts = await connectDemoAccounts(execution, created.customer_id, [
      { platform: 'mt4', count: 2 },
      { platform: 'mt5', count: 2 },
    ]);
    customer = { ...created, accounts };
  } finally {
    execution.close();
  }
  // What a user sets by hand when not running against `npm start`; MTX_DEV_FILE points nowhere so no local dev.json leaks in.
  environment = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MTX_BASE_URL: stack.gatewayUrl,
    MTX_API_KEY: customer.full_key,
    MTX_READ_KEY: customer.read_key,
    MTX_SANDBOX_URL: stack.sandboxUrl,
    MTX_ACCOUNTS: JSON.stringify(customer.accounts),
    MTX_DEV_FILE: path.join(repositoryRoot, 'test', 'output', 'no-dev-file.json'),
  };
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  if (mongo) {
    const { databases } = await mongo.db().admin().listDatabases();
    for (const database of databases)
      if (database.name.startsWith(prefix))
        await mongo
          .db(database.name)
          .dropDatabase()
          .catch(() => undefined);
    await mongo.close();
  }
});

const tsx = path.join(repositoryRoot, 'node_modules', '.bin', 'tsx');

function run(script: string, args: string[] = [], timeoutMs = 90_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [path.join(repositoryRoot, script), ...args], {
      cwd: repositoryRoot,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const example = (name: string) => run(`services/client/examples/${name}.ts`);
const cli = (...args: string[]) => run('services/client/src/cli.ts', args);

describe('examples against the stack', () => {
  it('topup.ts: creates a top-up, pays it through the sandbox and sees it paid', async () => {
    const client = new MtxClient({ baseUrl: stack.gatewayUrl, apiKey: customer.read_key });
    const before = await client.wallet.get();
    const result = await example('topup');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/paid: balance/);
    const after = await client.wallet.get();
    expect(after.balance_eur_cents).toBeGreaterThanOrEqual(before.balance_eur_cents + 2500);
  });

  it('place-batch.ts: fills one leg on every MT4 and MT5 account', async () => {
    const result = await example('place-batch');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const account of customer.accounts)
      expect(result.stdout).toMatch(new RegExp(`${account.id}\\s+${account.platform}\\s+\\S+\\s+filled`));
  });

  it('positions.ts: lists the positions just opened on every account, valued now', async () => {
    const result = await example('positions');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/^ACCOUNT\s+TICKET\s+SYMBOL\s+TYPE\s+VOLUME\s+NOW\s+PROFIT\s+SWAP/m);
    const client = new MtxClient({ baseUrl: stack.gatewayUrl, apiKey: customer.read_key });
    const open = await client.positions.list({ symbol: 'EURUSD', symbol_match: 'base' });
    for (const account of open.results)
      for (const position of account.positions)
        expect(result.stdout).toMatch(new RegExp(`${account.account_id}\\s+${position.ticket}\\s+EURUSD`));
    expect(open.summary.positions).toBeGreaterThanOrEqual(customer.accounts.length);
    expect(result.stdout).toMatch(new RegExp(`open on ${customer.accounts.length} accounts`));
  });

  it('account-state.ts: shows every account connected with its balance and equity', async () => {
    const result = await example('account-state');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const account of customer.accounts)
      expect(result.stdout).toMatch(new RegExp(`${account.id}\\s+\\S+\\s+yes\\s+[\\d.]+\\s+[\\d.]+`));
  });

  it('list-batches.ts: iterates every page of the batches, newest first', async () => {
    const client = new MtxClient({ baseUrl: stack.gatewayUrl, apiKey: customer.read_key });
    const newest = (await client.orders.listBatches({ limit: 1 })).data[0]!;
    const result = await example('list-batches');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout.split('\n')[0]).toContain(newest.batch_id);
    const iterated: string[] = [];
    for await (const batch of client.orders.listBatches({ limit: 1 })) iterated.push(batch.batch_id);
    const everything = (await client.orders.listBatches({ limit: 100 })).data;
    expect(iterated).toEqual(everything.map((batch) => batch.batch_id));
    expect(result.stdout).toMatch(new RegExp(`^${iterated.length} batch\\(es\\)`, 'm'));
  });

  it('close-by-selector.ts: closes those positions by base symbol on every account', async () => {
    const result = await example('close-by-selector');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const account of customer.accounts) expect(result.stdout).toMatch(new RegExp(`${account.id}\\s+${account.platform}\\s+closed`));
    // Nothing is left open: a second close finds nothing.
    const again = await example('close-by-selector');
    expect(again.status).toBe(0);
    for (const account of customer.accounts)
      expect(again.stdout).toMatch(new RegExp(`${account.id}\\s+${account.platform}\\s+nothing_matched`));
  });
});

describe('webhooks against the stack', () => {
  it('webhooks.ts: receives the batch.settled of the batch it placed, verified', async () => {
    const result = await example('webhooks');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const batchId = /placed batch (bat_\w+)/.exec(result.stdout)?.[1];
    expect(batchId).toBeDefined();
    expect(result.stdout).toContain(`batch.settled for ${batchId}`);
    expect(result.stdout).toMatch(/GET \/v1\/events lists it: true/);
    const client = new MtxClient({ baseUrl: stack.gatewayUrl, apiKey: customer.read_key });
    expect((await client.webhookEndpoints.list()).data).toEqual([]);
  });

  it('delivers topup.credited when a paid top-up lands in the wallet', async () => {
    const deliveries: string[] = [];
    const receiver = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push(JSON.stringify({ body: Buffer.concat(chunks).toString(), signature: request.headers['mtx-signature'] }));
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const client = new MtxClient({ baseUrl: stack.gatewayUrl, apiKey: customer.full_key });
    const endpoint = await client.webhookEndpoints.create({
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
      enabled_events: ['topup.credited'],
    });
    const asset = (await client.wallet.listAssets({ amount_eur_cents: 2_000 })).find((row) => row.is_stable)!;
    const topup = await client.wallet.createTopup({
      amount_eur_cents: 2_000,
      asset_code: asset.asset_code,
      blockchain_code: asset.blockchain_code,
    });
    const paid = await fetch(`${stack.sandboxUrl}/sandbox/deposits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        address: topup.deposit_address,
        asset_code: topup.asset_code,
        blockchain_code: topup.blockchain_code,
        amount: topup.deposit_amount,
      }),
    });
    expect(paid.ok).toBe(true);
    const delivered = await eventually(async () => {
      for (const raw of deliveries) {
        const { body, signature } = JSON.parse(raw) as { body: string; signature: string };
        const event = verifyWebhook(body, signature, endpoint.secret);
        if (event.type === 'topup.credited' && event.data.topup_id === topup.id) return event;
      }
      return undefined;
    }, 30_000);
    expect(delivered.data).toMatchObject({ topup_id: topup.id, amount_eur_cents: 2_000, credited_total_eur_cents: 2_000 });
    await client.webhookEndpoints.delete(endpoint.id);
    receiver.close();
  });

  it('webhooks:listen verifies, prints and forwards each event, and deletes its endpoint on exit', async () => {
    const forwarded: Array<{ signature: string; body: string }> = [];
    const application = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        forwarded.push({ signature: String(request.headers['mtx-signature']), body: Buffer.concat(chunks).toString() });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => application.listen(0, '127.0.0.1', () => resolve()));
    const forwardTo = `http://127.0.0.1:${(application.address() as AddressInfo).port}/hooks`;
    const listening = run('services/client/src/cli.ts', [
      'webhooks:listen',
      '--forward-to',
      forwardTo,
      '--events',
      'batch.settled',
      '--max-events',
      '1',
    ]);
    const client = new MtxClient({ baseUrl: stack.gatewayUrl, apiKey: customer.full_key });
    await eventually(async () => (await client.webhookEndpoints.list()).data.length === 1, 30_000);
    const account = customer.accounts[0]!;
    const batch = await client.orders.place({
      orders: [{ account_id: account.id, symbol: `EURUSD${account.symbol_suffix}`, operation: 'buy', volume: 0.1 }],
    });
    const result = await listening;
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`batch\\.settled\\s+evt_[0-9a-f]{32} → ${forwardTo} 204`));
    expect(result.stderr).toMatch(/endpoint we_\w+ deleted; 1 event\(s\) received/);
    expect(forwarded).toHaveLength(1);
    expect(JSON.parse(forwarded[0]!.body).data.batch_id).toBe(batch.batch_id);
    expect(forwarded[0]!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect((await client.webhookEndpoints.list()).data).toEqual([]);
    application.close();
  });
});

describe('operator CLI against the stack', () => {
  it('lists accounts and the wallet as tables', async () => {
    const accounts = await cli('accounts');
    expect(accounts.status, accounts.stderr).toBe(0);
    expect(accounts.stdout.split('\n')[0]).toMatch(/^ACCOUNT\s+PLATFORM/);
    for (const account of customer.accounts) expect(accounts.stdout).toContain(account.id);
    const wallet = await cli('wallet');
    expect(wallet.status, wallet.stderr).toBe(0);
    expect(wallet.stdout).toMatch(/^balance\s+EUR \d/m);
  });

  it('shows the subscription, and creates, pays and follows a top-up until it is paid', async () => {
    const subscription = await cli('subscription');
    expect(subscription.status, subscription.stderr).toBe(0);
    expect(subscription.stdout).toMatch(/^plan\s+per_account/m);
    expect(subscription.stdout).toMatch(/^SEAT\s+STATUS\s+PAID UNTIL\s+ACCOUNT/m);

    const created = await cli('topup:create', '--amount-eur', '12.50', '--json');
    expect(created.status, created.stderr).toBe(0);
    const topup = JSON.parse(created.stdout) as { id: number; status: string; amount_eur_cents: number };
    expect(topup).toMatchObject({ status: 'pending', amount_eur_cents: 1250 });
    const paid = await cli('topup:pay-sandbox', String(topup.id));
    expect(paid.status, paid.stderr).toBe(0);
    const followed = await cli('topup:show', String(topup.id), '--wait', '--timeout-seconds', '60');
    expect(followed.status, followed.stderr).toBe(0);
    expect(followed.stderr).toMatch(new RegExp(`✔ top-up ${topup.id}: paid, EUR 12\\.50 credited`));
    expect(followed.stdout).toMatch(/^status\s+paid$/m);
  });

  it('places and closes a batch from flags, with progress on stderr and exit status 0', async () => {
    const placed = await cli('orders:place', '--accounts', 'all', '--base-symbol', 'GBPUSD', '--operation', 'sell', '--volume', '0.1');
    expect(placed.status, `${placed.stdout}\n${placed.stderr}`).toBe(0);
    expect(placed.stderr).toMatch(/✔ orders: batch \S+/);
    for (const account of customer.accounts)
      expect(placed.stdout).toMatch(
        new RegExp(
          `${account.id}\\s+${account.platform}\\s+GBPUSD${account.symbol_suffix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+sell\\s+0\\.1\\s+filled`,
          'i',
        ),
      );
    const closed = await cli('orders:close', '--accounts', 'all', '--symbol', 'GBPUSD', '--match', 'base', '--side', 'short');
    expect(closed.status, `${closed.stdout}\n${closed.stderr}`).toBe(0);
    expect(closed.stdout).toMatch(/^ACCOUNT\s+PLATFORM\s+STATUS\s+MATCHED\s+CLOSED/m);
    for (const account of customer.accounts)
      expect(closed.stdout).toMatch(new RegExp(`${account.id}\\s+${account.platform}\\s+closed\\s+1\\s+1`));
  });

  it('lists positions, an account state and the stored batches', async () => {
    const account = customer.accounts[0]!;
    const state = await cli('account:state', account.id);
    expect(state.status, state.stderr).toBe(0);
    expect(state.stdout).toMatch(/^connected\s+yes$/m);
    expect(state.stdout).toMatch(/^equity\s+[\d.]+$/m);
    const positions = await cli('positions', '--accounts', account.id, '--symbol', '*', '--kind', 'any');
    expect(positions.status, positions.stderr).toBe(0);
    expect(positions.stdout).toMatch(/^(ACCOUNT\s+TICKET|nothing open matches)/m);
    const listed = await cli('batches', '--limit', '2', '--json');
    expect(listed.status, listed.stderr).toBe(0);
    const page = JSON.parse(listed.stdout) as { data: Array<{ batch_id: string }>; has_more: boolean };
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    const next = await cli('batches', '--limit', '2', '--starting-after', page.data[1]!.batch_id);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^BATCH\s+KIND\s+CREATED\s+SETTLED\s+SUMMARY/m);
    expect(next.stdout).not.toContain(page.data[0]!.batch_id);
    const refused = await cli('batches', '--created-gte', 'yesterday');
    expect(refused.status).toBe(1);
  });

  it('reports API errors readably with exit status 1', async () => {
    const refused = await run('services/client/src/cli.ts', [
      'orders:place',
      '--accounts',
      'acc_not_mine',
      '--symbol',
      'EURUSD',
      '--operation',
      'buy',
      '--volume',
      '0.1',
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/mtx: 400 \w+: .+\[request req_/);
  });
});

describe('idempotency end to end', () => {
  it('replays a batch sent twice with one key, and resolves concurrent duplicates to one batch', async () => {
    const client = new MtxClient({ baseUrl: stack.gatewayUrl, apiKey: customer.full_key });
    const account = customer.accounts.find((candidate) => candidate.platform === 'mt5')!;
    const body = {
      defaults: { operation: 'buy', volume: 0.1 },
      orders: [{ account_id: account.id, symbol: `USDJPY${account.symbol_suffix}` }],
    };
    const first = await client.orders.place(body, { idempotencyKey: `replay-${prefix}` });
    const second = await client.orders.place(body, { idempotencyKey: `replay-${prefix}` });
    expect(first.idempotent_replay).toBe(false);
    expect(second).toMatchObject({ batch_id: first.batch_id, idempotent_replay: true });

    // The loser of the race gets 409 idempotency_key_in_progress, waits, and retries into the replay.
    const [left, right] = await Promise.all([
      client.orders.place(body, { idempotencyKey: `race-${prefix}` }),
      client.orders.place(body, { idempotencyKey: `race-${prefix}` }),
    ]);
    expect(left.batch_id).toBe(right.batch_id);
    expect([left.idempotent_replay, right.idempotent_replay].sort()).toEqual([false, true]);

    const closed = await client.orders.close({
      defaults: { symbol: 'USDJPY', symbol_match: 'base' },
      accounts: [{ account_id: account.id }],
    });
    expect(closed.summary.closed).toBeGreaterThanOrEqual(1);
  });
});
