import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

/**
 * GET /v1/history/deals and /orders on the real stack: the deals just made on MT4 and MT5 accounts (hedging and
 * netting), merged newest first; cursor paging without gaps or repeats while the accounts keep trading; the
 * 90-day bound and the other refusals; read-only keys and other customers. Then the client examples and the CLI.
 */
let e2e: ExecutionE2e;
type Account = Awaited<ReturnType<ExecutionE2e['connect']>>;
const accounts: Record<'alpha' | 'beta' | 'omega', Account> = {} as never;
const all = () => Object.values(accounts);
type Deal = {
  account_id: string;
  ticket: number;
  entry: string;
  time: string;
  symbol: string;
  position_id: number;
  volume: number;
  profit: number;
};
const controlOf = (account: Account) => `/control/accounts/${account.server}/${account.login}`;
const startedAt = new Date(Date.now() - 60_000).toISOString();

function query(parameters: Record<string, string | number | string[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    for (const each of Array.isArray(value) ? value : [value]) search.append(name, String(each));
  return search.toString();
}

async function trade(operation: 'buy' | 'sell', perAccount = 1) {
  const placed = await e2e.api('POST', '/v1/orders', {
    defaults: { operation, volume: 0.1 },
    orders: all().flatMap((account) =>
      Array.from({ length: perAccount }, () => ({ account_id: account.id, symbol: `EURUSD${account.symbol_suffix}` })),
    ),
  });
  expect(placed.body.summary.filled, JSON.stringify(placed.body)).toBe(all().length * perAccount);
  return placed.body;
}

/** Every page of a history read, following `next_cursor`. */
async function everyPage(kind: 'deals' | 'orders', parameters: Record<string, string | number | string[]>, between?: () => Promise<void>) {
  const items: Deal[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const answer = await e2e.api('GET', `/v1/history/${kind}?${query({ ...parameters, ...(cursor ? { starting_after: cursor } : {}) })}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    items.push(...answer.body.data);
    if (page === 0) await between?.();
    if (!answer.body.has_more) return items;
    cursor = answer.body.next_cursor;
  }
  throw new Error('more than 100 pages');
}

const newestFirst = (deals: Deal[]) =>
  deals.every((deal, index) => index === 0 || Date.parse(deals[index - 1]!.time) >= Date.parse(deal.time));

beforeAll(async () => {
  e2e = await startExecutionE2e('e2edeskhistory');
  await e2e.control('/control/prices', 'POST', { frozen_all: true });
  accounts.alpha = await e2e.connect('mt5', 'AlphaFX-Live');
  accounts.beta = await e2e.connect('mt5', 'BetaMarkets-Server');
  accounts.omega = await e2e.connect('mt4', 'OmegaCapital-Demo');
}, 240_000);

afterAll(async () => e2e?.close());

describe('GET /v1/history/deals and /v1/history/orders', () => {
  it('shows the deals just made on MT4 and MT5, hedging and netting, merged newest first', async () => {
    await trade('buy', 2);
    const closed = await e2e.api('POST', '/v1/orders/close', {
      symbol: 'EURUSD',
      symbol_match: 'base',
      accounts: all().map((account) => ({ account_id: account.id })),
    });
    expect(closed.body.summary.failed).toBe(0);
    const answer = await e2e.api('GET', `/v1/history/deals?${query({ from: startedAt, limit: 100 })}`, undefined, {
      authorization: `Bearer ${e2e.keys.read}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.has_more).toBe(false);
    expect(answer.body.next_cursor).toBeNull();
    expect(answer.body.accounts).toEqual(all().map((account) => ({ account_id: account.id, status: 'ok', message: '' })));
    const deals: Deal[] = answer.body.data;
    expect(newestFirst(deals)).toBe(true);
    // MT5: exactly the trade server's deals; MT4 (no deals): an in and an out deal per order.
    for (const account of [accounts.alpha, accounts.beta]) {
      const broker = (await e2e.control(`${controlOf(account)}/deals`)).body.deals as Array<{ ticket: number; entry: string }>;
      const listed = deals.filter((deal) => deal.account_id === account.id);
      expect(listed.map((deal) => [deal.ticket, deal.entry]).sort()).toEqual(broker.map((deal) => [deal.ticket, deal.entry]).sort());
    }
    // Netting: two buys and a close of the one position make in, in and out deals.
    expect(
      deals
        .filter((deal) => deal.account_id === accounts.beta.id)
        .map((deal) => deal.entry)
        .sort(),
    ).toEqual(['in', 'in', 'out']);
    const omega = deals.filter((deal) => deal.account_id === accounts.omega.id);
    expect(omega.map((deal) => deal.entry).sort()).toEqual(['in', 'in', 'out', 'out']);
    const omegaClosed = closed.body.results.find((result: { account_id: string }) => result.account_id === accounts.omega.id);
    expect(new Set(omega.map((deal) => deal.ticket))).toEqual(
      new Set(omegaClosed.results.map((ticket: { ticket: number }) => ticket.ticket)),
    );
    expect(omega.filter((deal) => deal.entry === 'in').every((deal) => deal.profit === 0)).toBe(true);

    const orders = await e2e.api('GET', `/v1/history/orders?${query({ from: startedAt, account_id: accounts.omega.id })}`);
    expect(orders.body.data.map((order: { ticket: number; state: string }) => [order.ticket, order.state]).sort()).toEqual(
      omegaClosed.results.map((ticket: { ticket: number }) => [ticket.ticket, 'filled']).sort(),
    );
    const mt5Orders = await e2e.api(
      'GET',
      `/v1/history/orders?${query({ from: startedAt, account_id: accounts.alpha.id, symbol: 'EURUSD' })}`,
    );
    expect(mt5Orders.body.data).toHaveLength(4);
    expect(
      mt5Orders.body.data.every((order: { state: string; symbol: string }) => order.state === 'filled' && order.symbol === 'EURUSD'),
    ).toBe(true);
  });

  it('pages without a gap or a repeat while the accounts keep trading, and filters by base symbol', async () => {
    await trade('sell');
    const whole = (await e2e.api('GET', `/v1/history/deals?${query({ from: startedAt, limit: 100 })}`)).body.data as Deal[];
    let traded: Record<string, unknown> | undefined;
    const paged = await everyPage('deals', { from: startedAt, limit: 2 }, async () => {
      // MT4 times are whole seconds: a deal of the next second is newer than any deal the first page showed.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      traded = await trade('buy');
    });
    expect(traded).toBeDefined();
    // The deals made after the first page are newer than every cursor: the pages hold exactly the first read.
    expect(paged.map((deal) => [deal.account_id, deal.ticket, deal.entry])).toEqual(
      whole.map((deal) => [deal.account_id, deal.ticket, deal.entry]),
    );
    const after = (await e2e.api('GET', `/v1/history/deals?${query({ from: startedAt, limit: 100 })}`)).body.data as Deal[];
    expect(after.length).toBe(whole.length + all().length);
    expect(after.slice(all().length)).toEqual(whole);

    const beta = (await e2e.api('GET', `/v1/history/deals?${query({ from: startedAt, account_id: accounts.beta.id, symbol: 'EURUSD' })}`))
      .body.data as Deal[];
    expect(beta.length).toBeGreaterThan(0);
    expect(beta.every((deal) => deal.symbol === 'EURUSD.xx')).toBe(true);
    expect((await e2e.api('GET', `/v1/history/deals?${query({ from: startedAt, symbol: 'GBPUSD' })}`)).body.data).toEqual([]);
  });

  it('refuses a range over 90 days and every other bad query with a 400, and keeps customers apart', async () => {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const first = await e2e.api('GET', `/v1/history/deals?${query({ from: startedAt, limit: 1 })}`);
    const cases: Array<[string, string, string]> = [
      [query({ from: iso(now - 91 * 86_400_000), to: iso(now) }), 'invalid_request', 'from'],
      [query({ from: iso(now), to: iso(now - 1000) }), 'invalid_request', 'from'],
      [query({ starting_after: 'not-a-cursor' }), 'invalid_request', 'starting_after'],
      [query({ account_id: Array.from({ length: 21 }, (_, index) => `acc_${index}`) }), 'too_many_accounts', 'account_id'],
      [query({ account_id: [accounts.alpha.id, accounts.alpha.id] }), 'invalid_request', 'account_id'],
      [query({ limit: 101 }), 'invalid_request', 'limit'],
    ];
    for (const [search, code, param] of cases) {
      const answer = await e2e.api('GET', `/v1/history/deals?${search}`);
      expect([answer.status, answer.body.error?.code, answer.body.error?.param], search).toEqual([400, code, param]);
    }
    const wrongKind = await e2e.api('GET', `/v1/history/orders?${query({ starting_after: first.body.next_cursor })}`);
    expect([wrongKind.status, wrongKind.body.error.param]).toEqual([400, 'starting_after']);
    expect((await e2e.api('GET', `/v1/history/deals?${query({ from: iso(now - 90 * 86_400_000), to: iso(now) })}`)).status).toBe(200);

    const other = await e2e.newCustomer('history stranger');
    const asOther = { authorization: `Bearer ${other.read}` };
    const stranger = await e2e.api('GET', `/v1/history/deals?${query({ account_id: accounts.alpha.id })}`, undefined, asOther);
    expect([stranger.status, stranger.body.error.code]).toEqual([404, 'not_found']);
    const own = await e2e.api('GET', '/v1/history/deals', undefined, asOther);
    expect([own.status, own.body.data, own.body.accounts]).toEqual([200, [], []]);
  });
});

const tsx = path.join(repositoryRoot, 'node_modules', '.bin', 'tsx');

function run(script: string, args: string[] = []): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [path.join(repositoryRoot, script), ...args], {
      cwd: repositoryRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MTX_BASE_URL: e2e.stack.gatewayUrl,
        MTX_API_KEY: e2e.keys.full,
        MTX_ACCOUNTS: JSON.stringify(
          all().map((account) => ({ id: account.id, platform: account.platform, symbol_suffix: account.symbol_suffix })),
        ),
        MTX_DEV_FILE: path.join(repositoryRoot, 'test', 'output', 'no-dev-file.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not finish within 90 s\n${stdout}\n${stderr}`));
    }, 90_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('the client examples and the CLI', () => {
  it('modify-stops.ts moves the stops of the open long positions; orders:modify does it from flags', async () => {
    await e2e.control('/control/prices', 'POST', { symbol: 'EURUSD', bid: 1.1, frozen: true });
    const example = await run('services/client/examples/modify-stops.ts');
    expect(example.status, `${example.stdout}\n${example.stderr}`).toBe(0);
    expect(example.stdout).toMatch(/stop loss 1\.089, take profit 1\.111/);
    const positions = (await e2e.api('GET', `/v1/positions?${query({ symbol: 'EURUSD', symbol_match: 'base' })}`)).body.results;
    const open = positions
      .flatMap((result: { positions: Array<{ type: string; stop_loss: number; take_profit: number }> }) => result.positions)
      .filter((position: { type: string }) => position.type === 'buy');
    expect(open.length).toBeGreaterThan(0);
    expect(
      open.every((position: { stop_loss: number; take_profit: number }) => position.stop_loss === 1.089 && position.take_profit === 1.111),
    ).toBe(true);

    const cli = await run('services/client/src/cli.ts', [
      'orders:modify',
      '--accounts',
      'all',
      '--symbol',
      'EURUSD',
      '--match',
      'base',
      '--side',
      'long',
      '--stop-loss',
      '0',
    ]);
    expect(cli.status, `${cli.stdout}\n${cli.stderr}`).toBe(0);
    expect(cli.stdout.split('\n')[0]).toMatch(/^ACCOUNT\s+TICKET\s+SYMBOL/);
    const refused = await run('services/client/src/cli.ts', ['orders:modify', '--accounts', 'all', '--symbol', 'EURUSD']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/at least one of --stop-loss/);
  });

  it('history.ts iterates every deal of every page; the history command prints them and follows pages with --all', async () => {
    const whole = (await e2e.api('GET', `/v1/history/deals?${query({ from: startedAt, limit: 100 })}`)).body.data as Deal[];
    const example = await run('services/client/examples/history.ts');
    expect(example.status, `${example.stdout}\n${example.stderr}`).toBe(0);
    expect(example.stdout).toContain(`${whole.length} deal(s) in the last 24 h`);
    const cli = await run('services/client/src/cli.ts', ['history', '--from', startedAt, '--limit', '3', '--all', '--json']);
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).data.map((deal: Deal) => deal.ticket)).toEqual(whole.map((deal) => deal.ticket));
    const table = await run('services/client/src/cli.ts', ['history', '--kind', 'orders', '--limit', '2']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ACCOUNT\s+TICKET\s+TIME/);
    expect(table.stdout).toMatch(/more: --starting-after \S+/);
  });
});
