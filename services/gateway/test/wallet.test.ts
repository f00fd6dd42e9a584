import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { startWalletStack, type StackCustomer, type WalletStack } from '../../../test/e2e/wallet-stack';

let stack: WalletStack;
let unimplementedBilling: WalletStack;
let billingDown: WalletStack;

beforeAll(async () => {
  const common = { mongodbUrl: inject('mongodbUrl'), natsUrl: inject('natsUrl') };
  [stack, unimplementedBilling, billingDown] = await Promise.all([
    startWalletStack({ ...common, billing: 'stub' }),
    startWalletStack({ ...common, billing: 'unimplemented' }),
    startWalletStack({ ...common, billing: 'down', gatewayEnv: { GRPC_DEADLINE_MS: '1000' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([stack?.close(), unimplementedBilling?.close(), billingDown?.close()]);
});

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

async function fundedTopup(customer: StackCustomer, amount: number) {
  const topup = (
    await stack.request('POST', '/v1/wallet/topup', {
      key: customer.full_key,
      body: { amount_eur_cents: amount, asset_code: 'USDT', blockchain_code: 'TRON' },
    })
  ).body;
  const payment = (
    await stack.sandboxRequest('POST', '/sandbox/deposits', {
      address: topup.deposit_address,
      asset_code: 'USDT',
      blockchain_code: 'TRON',
      amount: topup.deposit_amount,
      delivery: 'never',
    })
  ).body as { transaction_id: string; invoice_id: string; received_at: string };
  return { topup, payment };
}

describe('GET /v1/wallet', () => {
  it('has exactly the documented fields, with upcoming charges from billing and the shortfall against the balance', async () => {
    const customer = await stack.newCustomer();
    stack.upcoming.set(customer.customer_id, [
      { when: '2027-03-10T09:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'MT5 live 7Hk2' },
      { when: '2027-03-20T09:00:00.000Z', amount_eur_cents: 800, kind: 'server', label: 'Private server Frankfurt' },
    ]);
    const short = await stack.request('GET', '/v1/wallet', { key: customer.read_key });
    expect(short.status).toBe(200);
    expect(Object.keys(short.body).sort()).toEqual([
      'balance_eur_cents',
      'covers_upcoming',
      'held_eur_cents',
      'pending_topups',
      'shortfall_eur_cents',
      'upcoming',
      'upcoming_total_eur_cents',
    ]);
    expect(short.body).toEqual({
      balance_eur_cents: 0,
      held_eur_cents: 0,
      pending_topups: [],
      upcoming: [
        { when: '2027-03-10T09:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'MT5 live 7Hk2' },
        { when: '2027-03-20T09:00:00.000Z', amount_eur_cents: 800, kind: 'server', label: 'Private server Frankfurt' },
      ],
      upcoming_total_eur_cents: 2000,
      shortfall_eur_cents: 2000,
      covers_upcoming: false,
    });
    expect(short.headers.get('ratelimit-limit')).toBeTruthy();

    await stack.walletClient.call('Credit', {
      customer_id: customer.customer_id,
      entry_id: `adjustment:${customer.customer_id}:1`,
      amount_eur_cents: 1500,
      reason: 'adjustment',
      reference: '',
    });
    const partly = (await stack.request('GET', '/v1/wallet', { key: customer.read_key })).body;
    expect(partly).toMatchObject({
      balance_eur_cents: 1500,
      upcoming_total_eur_cents: 2000,
      shortfall_eur_cents: 500,
      covers_upcoming: false,
    });
    await stack.walletClient.call('Credit', {
      customer_id: customer.customer_id,
      entry_id: `adjustment:${customer.customer_id}:2`,
      amount_eur_cents: 500,
      reason: 'adjustment',
      reference: '',
    });
    expect((await stack.request('GET', '/v1/wallet', { key: customer.read_key })).body).toMatchObject({
      balance_eur_cents: 2000,
      shortfall_eur_cents: 0,
      covers_upcoming: true,
    });
  });

  it('treats a billing service without GetUpcoming as owing nothing, and answers 503 when billing is down', async () => {
    const customer = await unimplementedBilling.newCustomer();
    const empty = await unimplementedBilling.request('GET', '/v1/wallet', { key: customer.read_key });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ upcoming: [], upcoming_total_eur_cents: 0, shortfall_eur_cents: 0, covers_upcoming: true });

    const stranded = await billingDown.newCustomer();
    const down = await billingDown.request('GET', '/v1/wallet', { key: stranded.read_key });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('unavailable');
    expect(down.headers.get('retry-after')).toBe('1');
  });
});

describe('key levels and validation', () => {
  it('lets a read-only key read every wallet route and keeps top-up creation for the full key', async () => {
    const customer = await stack.newCustomer();
    const created = await stack.request('POST', '/v1/wallet/topup', {
      key: customer.full_key,
      body: { amount_eur_cents: 1000, asset_code: 'USDT', blockchain_code: 'TRON' },
    });
    expect(created.status).toBe(201);
    for (const path of ['/v1/wallet', '/v1/wallet/assets?amount_eur_cents=1000', `/v1/wallet/topup/${created.body.id}`]) {
      expect((await stack.request('GET', path, { key: customer.read_key })).status, path).toBe(200);
      expect((await stack.request('GET', path)).status, path).toBe(401);
    }
    const forbidden = await stack.request('POST', '/v1/wallet/topup', {
      key: customer.read_key,
      body: { amount_eur_cents: 1000, asset_code: 'USDT', blockchain_code: 'TRON' },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    expect(Object.keys(created.body).sort()).toEqual([
      'amount_eur_cents',
      'asset_code',
      'blockchain_code',
      'created_at',
      'credited_eur_cents',
      'deposit_address',
      'deposit_amount',
      'deposit_amount_decimal',
      'expires_at',
      'id',
      'is_evm',
      'status',
    ]);
  });

  it('answers bad input with a clear 400 and creates nothing', async () => {
    const customer = await stack.newCustomer();
    const post = (body: unknown) => stack.request('POST', '/v1/wallet/topup', { key: customer.full_key, body });
    const cases: Array<[unknown, string, string | undefined]> = [
      [{ amount_eur_cents: 1000, asset_code: 'USDT', blockchain_code: 'TRON', memo: 'x' }, 'unknown_field', 'memo'],
      [{ amount_eur_cents: '1000', asset_code: 'USDT', blockchain_code: 'TRON' }, 'invalid_request', 'amount_eur_cents'],
      [{ amount_eur_cents: 999, asset_code: 'USDT', blockchain_code: 'TRON' }, 'amount_out_of_range', 'amount_eur_cents'],
      [{ amount_eur_cents: 50001, asset_code: 'USDT', blockchain_code: 'TRON' }, 'amount_out_of_range', 'amount_eur_cents'],
      [{ amount_eur_cents: 1000.5, asset_code: 'USDT', blockchain_code: 'TRON' }, 'invalid_request', 'amount_eur_cents'],
      [{ amount_eur_cents: 1000, blockchain_code: 'TRON' }, 'invalid_request', 'asset_code'],
      [{ amount_eur_cents: 1000, asset_code: 'USDT', blockchain_code: 'TRON', is_evm: 'yes' }, 'invalid_request', 'is_evm'],
      [{ amount_eur_cents: 1000, asset_code: 'DOGE', blockchain_code: 'ETH' }, 'invalid_request', 'asset_code'],
    ];
    for (const [body, code, param] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code, JSON.stringify(body)).toBe(code);
      if (param) expect(response.body.error.param, JSON.stringify(body)).toBe(param);
    }
    expect((await stack.request('GET', '/v1/wallet', { key: customer.read_key })).body.pending_topups).toEqual([]);
    for (const path of [
      '/v1/wallet/topup/abc',
      '/v1/wallet/topup/0',
      '/v1/wallet/assets',
      '/v1/wallet/assets?amount_eur_cents=abc',
      '/v1/wallet/assets?amount_eur_cents=1000&extra=1',
    ]) {
      const response = await stack.request('GET', path, { key: customer.read_key });
      expect(response.status, path).toBe(400);
    }
  });
});

describe('POST /v1/hooks/payments/:provider', () => {
  it('needs no key, is not rate limited, and passes the raw bytes on whatever their formatting or content type', async () => {
    const customer = await stack.newCustomer();
    const { topup, payment } = await fundedTopup(customer, 2200);
    // Pretty-printed with odd spacing: re-serialising the JSON would break the signature.
    const body = `{\n  "type" : "transaction",\n  "timestamp": "${stack.clock.now().toISOString()}",\n  "invoice_id": "${payment.invoice_id}",\n  "asset_code": "USDT", "blockchain_code": "TRON",\n  "transaction": {"id": "${payment.transaction_id}", "amount": "${topup.deposit_amount}", "status": "confirmed", "received_at": "${payment.received_at}"}\n}\n`;
    const response = await fetch(`${stack.gatewayUrl}/v1/hooks/payments/sandbox`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-signature': stack.sign(body) },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, outcome: 'recorded' });
    expect(response.headers.get('ratelimit-limit')).toBeNull();
    await eventually(async () =>
      expect((await stack.request('GET', `/v1/wallet/topup/${topup.id}`, { key: customer.read_key })).body).toMatchObject({
        status: 'paid',
        credited_eur_cents: 2200,
      }),
    );
  });

  it('refuses oversized bodies, unknown providers and malformed provider names', async () => {
    const huge = JSON.stringify({ padding: 'x'.repeat(70 * 1024) });
    expect((await stack.postRawPostback(huge)).status).toBe(413);
    const body = JSON.stringify({ type: 'transaction' });
    const unknown = await fetch(`${stack.gatewayUrl}/v1/hooks/payments/nowpayments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': stack.sign(body) },
      body,
    });
    expect(unknown.status).toBe(404);
    const malformed = await fetch(`${stack.gatewayUrl}/v1/hooks/payments/Bad.Name`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(malformed.status).toBe(400);
    const empty = await fetch(`${stack.gatewayUrl}/v1/hooks/payments/sandbox`, { method: 'POST' });
    expect(empty.status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the wallet routes and the postback hook in a valid document', async () => {
    const response = await stack.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    await SwaggerParser.validate(structuredClone(response.body));
    for (const path of ['/v1/wallet', '/v1/wallet/assets', '/v1/wallet/topup', '/v1/wallet/topup/{id}', '/v1/hooks/payments/{provider}'])
      expect(response.body.paths[path], path).toBeDefined();
    expect(response.body.paths['/v1/wallet/topup'].post.responses['201']).toBeDefined();
    expect(response.body.paths['/v1/hooks/payments/{provider}'].post.security).toEqual([]);
  });
});
