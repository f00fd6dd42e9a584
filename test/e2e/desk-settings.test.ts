import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

/** GET and PATCH /v1/accounts/{id}/settings over the real stack: keys, strict validation, and a change every batch sees. */

let e2e: ExecutionE2e;
type Account = Awaited<ReturnType<ExecutionE2e['connect']>>;
let alpha: Account;
let others: Account[];

async function call(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${e2e.stack.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const settingsPath = () => `/v1/accounts/${alpha.id}/settings`;

beforeAll(async () => {
  e2e = await startExecutionE2e('e2edesksettings', { EXECUTION_DEADLINE_MS: '5000' });
  alpha = await e2e.connect('mt5', 'AlphaFX-Live');
  others = [await e2e.connect('mt5', 'BetaMarkets-Server'), await e2e.connect('mt4', 'GammaTrade-Real')];
}, 240_000);

afterAll(async () => e2e?.close());

describe('account settings', () => {
  it('reads the defaults with a read-only key, and refuses a change by it with 403', async () => {
    const read = await call('GET', settingsPath(), e2e.keys.read);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      account_id: alpha.id,
      symbol_map: {},
      max_volume_per_order: null,
      max_open_positions: null,
      max_total_volume: null,
      allowed_symbols: null,
      trading_enabled: true,
      updated_at: null,
    });
    const refused = await call('PATCH', settingsPath(), e2e.keys.read, { max_open_positions: 3 });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect((await call('GET', settingsPath(), e2e.keys.read)).body.max_open_positions).toBeNull();
  });

  it('changes only the fields given, and null resets one', async () => {
    const changed = await call('PATCH', settingsPath(), e2e.keys.full, {
      symbol_map: { GOLD: 'XAUUSD', 'EUR.pro': 'EURUSD.xx' },
      max_volume_per_order: 2.5,
      max_open_positions: 4,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      symbol_map: { GOLD: 'XAUUSD', 'EUR.pro': 'EURUSD.xx' },
      max_volume_per_order: 2.5,
      max_open_positions: 4,
      max_total_volume: null,
      trading_enabled: true,
    });
    expect(Date.parse(changed.body.updated_at)).toBeGreaterThan(0);
    const more = await call('PATCH', settingsPath(), e2e.keys.full, {
      allowed_symbols: ['EURUSD', 'XAUUSD'],
      max_open_positions: null,
      trading_enabled: false,
    });
    expect(more.status).toBe(200);
    const read = await call('GET', settingsPath(), e2e.keys.read);
    expect(read.body).toEqual({ ...more.body });
    expect(read.body).toMatchObject({
      symbol_map: { GOLD: 'XAUUSD', 'EUR.pro': 'EURUSD.xx' },
      max_volume_per_order: 2.5,
      max_open_positions: null,
      allowed_symbols: ['EURUSD', 'XAUUSD'],
      trading_enabled: false,
    });
    const reset = await call('PATCH', settingsPath(), e2e.keys.full, { allowed_symbols: null, symbol_map: null, trading_enabled: true });
    expect(reset.body).toMatchObject({ symbol_map: {}, allowed_symbols: null, trading_enabled: true, max_volume_per_order: 2.5 });
  });

  it('answers every bad change with 400 naming the field, and changes nothing', async () => {
    const before = (await call('GET', settingsPath(), e2e.keys.read)).body;
    const bad: Array<[unknown, string]> = [
      [{ max_volume_per_order: 0 }, 'max_volume_per_order'],
      [{ max_volume_per_order: -1 }, 'max_volume_per_order'],
      [{ max_volume_per_order: 'one' }, 'max_volume_per_order'],
      [{ max_total_volume: 1e9 }, 'max_total_volume'],
      [{ max_open_positions: 1.5 }, 'max_open_positions'],
      [{ max_open_positions: -1 }, 'max_open_positions'],
      [{ trading_enabled: 'yes' }, 'trading_enabled'],
      [{ trading_enabled: null }, 'trading_enabled'],
      [{ allowed_symbols: 'EURUSD' }, 'allowed_symbols'],
      [{ allowed_symbols: ['EURUSD', 'EURUSD'] }, 'allowed_symbols'],
      [{ allowed_symbols: ['EUR USD'] }, 'allowed_symbols'],
      [{ symbol_map: { GOLD: '' } }, 'symbol_map'],
      [{ symbol_map: { GOLD: 'XAU\tUSD' } }, 'symbol_map'],
      [{ symbol_map: Object.fromEntries(Array.from({ length: 201 }, (_, index) => [`S${index}`, 'EURUSD'])) }, 'symbol_map'],
      [{ symbol_map: { gold: 'XAUUSD', GOLD: 'XAUUSD' } }, 'symbol_map'],
      // A name the refusal quotes back, outside ASCII: still a 400 naming it, not a failed answer.
      [{ symbol_map: { Ë: 'y', 'm\u0210i': 'YO@' } }, 'symbol_map'],
      // A good field next to a bad one is not written either.
      [{ max_open_positions: 9, max_total_volume: 0 }, 'max_total_volume'],
      [{ leverage: 100 }, 'leverage'],
      [{}, ''],
    ];
    for (const [body, param] of bad) {
      const response = await call('PATCH', settingsPath(), e2e.keys.full, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(['invalid_request', 'unknown_field']).toContain(response.body.error.code);
      if (param) expect(`${response.body.error.param ?? ''} ${response.body.error.message}`).toContain(param);
    }
    expect((await call('GET', settingsPath(), e2e.keys.read)).body).toEqual(before);
  });

  it("answers another customer's account, and a missing one, with 404", async () => {
    const other = await e2e.newCustomer('desk settings other');
    for (const key of [other.read, other.full]) {
      expect((await call('GET', settingsPath(), key)).status).toBe(404);
      expect((await call('PATCH', settingsPath(), other.full, { max_open_positions: 1 })).status).toBe(404);
    }
    expect((await call('GET', '/v1/accounts/acc_doesnotexist/settings', e2e.keys.read)).status).toBe(404);
    expect((await call('GET', settingsPath(), e2e.keys.read)).body.max_open_positions).toBeNull();
  });
});

/** Runs a script of the client package as a user would, with the settings it reads from the environment. */
function run(script: string, args: string[] = []): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(repositoryRoot, 'node_modules', '.bin', 'tsx'), [path.join(repositoryRoot, script), ...args], {
      cwd: repositoryRoot,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MTX_BASE_URL: e2e.stack.gatewayUrl,
        MTX_API_KEY: e2e.keys.full,
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
      reject(new Error(`${script} did not finish in time\n${stdout}\n${stderr}`));
    }, 90_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('client and CLI', () => {
  it('sized-batch.ts: maps the name per account, sizes by equity and fills every account', async () => {
    const result = await run('services/client/examples/sized-batch.ts');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const [account, symbol] of [
      [alpha, 'EURUSD'],
      [others[0]!, 'EURUSD.xx'],
      [others[1]!, 'EURUSDm'],
    ] as const)
      expect(result.stdout).toMatch(new RegExp(`${account.id}\\s+${symbol.replace('.', '\\.')}\\s+filled\\s+0\\.1\\s+10000\\s+0\\.1\\s`));
    const stored = await call('GET', `/v1/accounts/${others[1]!.id}/settings`, e2e.keys.read);
    expect(stored.body).toMatchObject({ symbol_map: { EURUSD: 'EURUSDm' }, max_volume_per_order: 1 });
  });

  it('accounts:settings prints the settings, changes the flags given and resets with none', async () => {
    const account = others[0]!;
    const changed = await run('services/client/src/cli.ts', [
      'accounts:settings',
      account.id,
      '--max-open-positions',
      '7',
      '--allowed-symbols',
      'EURUSD.xx,GBPUSD.xx',
      '--symbol-map',
      'GOLD=XAUUSD.xx',
      '--trading-enabled',
      'false',
    ]);
    expect(changed.status, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/^max open positions\s+7$/m);
    expect(changed.stdout).toMatch(/^allowed symbols\s+EURUSD\.xx, GBPUSD\.xx$/m);
    expect(changed.stdout).toMatch(/^symbol map\s+GOLD → XAUUSD\.xx$/m);
    expect(changed.stdout).toMatch(/^trading enabled\s+no/m);
    const reset = await run('services/client/src/cli.ts', ['accounts:settings', account.id, '--allowed-symbols', 'none', '--json']);
    expect(reset.status, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ allowed_symbols: null, max_open_positions: 7, trading_enabled: false });
    const refused = await run('services/client/src/cli.ts', ['accounts:settings', account.id, '--max-open-positions=-2']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('max_open_positions');
    const read = await run('services/client/src/cli.ts', ['accounts:settings', account.id, '--key', e2e.keys.read]);
    expect(read.status, read.stderr).toBe(0);
    expect(read.stdout).toMatch(/^max open positions\s+7$/m);
  });
});
