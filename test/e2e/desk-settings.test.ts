import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

/** GET and PATCH /v1/accounts/{id}/settings over the real stack: keys, strict validation, and a change every batch sees. */

let e2e: ExecutionE2e;
type Account = Awaited<ReturnType<ExecutionE2e['connect']>>;
let alpha: Account;

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
  e2e = await startExecutionE2e('e2edesksettings');
  alpha = await e2e.connect('mt5', 'AlphaFX-Live');
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
