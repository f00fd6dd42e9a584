import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '@mtx/shared/clock';
import { createLogger } from '@mtx/shared/logger';
import { eventually } from '@mtx/shared/testing';
import { createSandboxApp } from '../src/app';
import { type SandboxHarness, startSandboxHarness } from './sandbox-harness';
import type { SandboxConfig } from '../src/config';

interface Received {
  body: string;
  signature: string | undefined;
  parsed: { timestamp: string; invoice_id: string; transaction: { id: string; status: string; amount: string } };
}

let harness: SandboxHarness;
let clock: ManualClock;
let config: SandboxConfig;
let baseUrl: string;
let received: Received[] = [];
// Status codes the receiver answers with, consumed in order; 200 once empty.
let scriptedAnswers: number[] = [];

beforeAll(async () => {
  harness = await startSandboxHarness(
    'sandbox',
    (receiverUrl) => ({
      POSTBACK_URL: `${receiverUrl}/hook`,
      POSTBACK_SECRET: 'test-secret-0123456789',
      POSTBACK_LATE_DELAY_MS: '400',
      POSTBACK_TIMEOUT_MS: '2000',
    }),
    ({ body, headers }) => {
      received.push({ body, signature: headers['x-signature'] as string | undefined, parsed: JSON.parse(body) });
      return scriptedAnswers.shift() ?? 200;
    },
  );
  ({ clock, config, baseUrl } = harness);
});

afterAll(async () => {
  await harness?.stop();
});

beforeEach(() => {
  received = [];
  scriptedAnswers = [];
});

const merchant = { 'x-api-key': 'local-only-sandbox-api-key' };

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = merchant) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function createInvoice(asset: string, chain: string, extra: Record<string, unknown> = {}) {
  return api('POST', '/v1/invoices', {
    asset_code: asset,
    blockchain_code: chain,
    amount: '10000000',
    amount_eur_cents: 1000,
    order_id: crypto.randomUUID(),
    expires_at: new Date(clock.now().getTime() + 30 * 60_000).toISOString(),
    ...extra,
  });
}

const deposit = (address: string, asset: string, chain: string, amount: string, delivery?: string) =>
  api('POST', '/sandbox/deposits', { address, asset_code: asset, blockchain_code: chain, amount, ...(delivery ? { delivery } : {}) }, {});

describe('assets and rates', () => {
  it('refuses the merchant API without the key', async () => {
    expect((await api('GET', '/v1/assets', undefined, {})).status).toBe(401);
    expect((await api('GET', '/v1/assets', undefined, { 'x-api-key': 'wrong-key-123' })).status).toBe(401);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  });

  it('offers stablecoins and volatile coins on several chains, with per-pair minimums and display decimals', async () => {
    const { status, body } = await api('GET', '/v1/assets');
    expect(status).toBe(200);
    const pairs = body.assets.map(
      (asset: { asset_code: string; blockchain_code: string }) => `${asset.asset_code}/${asset.blockchain_code}`,
    );
    expect(pairs).toEqual(
      expect.arrayContaining(['USDT/TRON', 'USDT/ETH', 'USDT/BSC', 'USDC/ETH', 'USDC/POLYGON', 'BTC/BTC', 'ETH/ETH', 'LTC/LTC', 'SOL/SOL']),
    );
    const btc = body.assets.find((asset: { asset_code: string }) => asset.asset_code === 'BTC');
    expect(btc).toMatchObject({ is_stable: false, is_evm: false, decimals: 8 });
    expect(btc.min_amount_eur_cents).toBeGreaterThan(1000);
    expect(btc.min_amount_eur_cents).toBeLessThanOrEqual(20000);
    expect(
      body.assets.find(
        (asset: { asset_code: string; blockchain_code: string }) => asset.asset_code === 'USDT' && asset.blockchain_code === 'BSC',
      ),
    ).toMatchObject({ is_evm: true, is_stable: true, decimals: 18 });
    for (const asset of body.assets) expect(asset.rate_eur).toMatch(/^\d+\.\d{8}$/);
  });

  it('moves rates over time, deterministically for a given instant', async () => {
    const rateOf = async (code: string) =>
      (await api('GET', '/v1/assets')).body.assets.find((asset: { asset_code: string }) => asset.asset_code === code).rate_eur as string;
    const start = clock.now();
    const btcNow = await rateOf('BTC');
    expect(await rateOf('BTC')).toBe(btcNow);
    clock.advanceMs(5 * 60_000);
    const btcLater = await rateOf('BTC');
    expect(btcLater).not.toBe(btcNow);
    // A stablecoin stays within half a percent of its peg.
    expect(Math.abs(Number(await rateOf('USDT')) / 0.92 - 1)).toBeLessThan(0.005);
    clock.set(start);
    expect(await rateOf('BTC')).toBe(btcNow);
  });
});

describe('invoices', () => {
  it('gives chain-appropriate deposit addresses and a wallet-connect URI only for EVM requests', async () => {
    const evm = await createInvoice('USDT', 'ETH');
    expect(evm.status).toBe(201);
    expect(evm.body.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(evm.body.payment_uri).toBeUndefined();
    expect((await createInvoice('USDT', 'TRON')).body.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect((await createInvoice('BTC', 'BTC')).body.address).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
    const web3 = await createInvoice('USDT', 'ETH', { is_evm: true });
    expect(web3.body.payment_uri).toBe(
      `ethereum:0xdac17f958d2ee523a2206206994597c13d831ec7@1/transfer?address=${web3.body.address}&uint256=10000000`,
    );
    const refused = await createInvoice('USDT', 'TRON', { is_evm: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
  });

  it('rejects malformed invoices', async () => {
    for (const extra of [
      { amount: '0' },
      { amount: '1.5' },
      { amount: 100 },
      { asset_code: 'NOPE' },
      { expires_at: '2000-01-01T00:00:00Z' },
      { surprise: 1 },
    ]) {
      const response = await createInvoice('USDT', 'TRON', extra);
      expect(response.status, JSON.stringify(extra)).toBe(400);
    }
  });

  it('reports status from its payments, expires, and cancels idempotently', async () => {
    const invoice = (await createInvoice('USDC', 'POLYGON')).body;
    expect(invoice).toMatchObject({ status: 'pending', amount: '10000000', amount_decimal: '10', paid_amount: '0', transactions: [] });
    await deposit(invoice.address, 'USDC', 'POLYGON', '4000000', 'never');
    const partial = (await api('GET', `/v1/invoices/${invoice.id}`)).body;
    expect(partial).toMatchObject({ status: 'partial', paid_amount: '4000000' });
    expect(partial.transactions).toHaveLength(1);
    expect(partial.transactions[0]).toMatchObject({ amount: '4000000', amount_decimal: '4', status: 'confirmed' });
    const cancelled = await api('POST', `/v1/invoices/${invoice.id}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await api('POST', `/v1/invoices/${invoice.id}/cancel`)).body.status).toBe('cancelled');
    // Coin reaches a cancelled invoice's address anyway: a chain cannot refuse it.
    expect((await deposit(invoice.address, 'USDC', 'POLYGON', '6000000', 'never')).status).toBe(201);
    expect((await api('GET', `/v1/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid', paid_amount: '10000000' });

    const expiring = (await createInvoice('USDC', 'POLYGON')).body;
    clock.advanceMs(31 * 60_000);
    expect((await api('GET', `/v1/invoices/${expiring.id}`)).body.status).toBe('expired');
    expect((await api('GET', '/v1/invoices/inv_missing')).status).toBe(404);
  });
});

describe('deposits and postbacks', () => {
  const verify = (message: Received) =>
    message.signature === `sha256=${crypto.createHmac('sha256', config.POSTBACK_SECRET).update(message.body).digest('hex')}`;

  it('refuses deposits to unknown addresses, in the wrong asset, or of a malformed amount', async () => {
    const invoice = (await createInvoice('USDT', 'TRON')).body;
    expect((await deposit('Tnotanaddress', 'USDT', 'TRON', '1')).status).toBe(404);
    expect((await deposit(invoice.address, 'USDT', 'ETH', '1')).status).toBe(400);
    expect((await deposit(invoice.address, 'USDT', 'TRON', '-1')).status).toBe(400);
    expect((await deposit(invoice.address, 'USDT', 'TRON', '1', 'sometimes')).status).toBe(400);
  });

  it('delivers confirming then confirmed, signed over the raw body with a timestamp inside', async () => {
    const invoice = (await createInvoice('USDT', 'TRON')).body;
    const answer = await deposit(invoice.address, 'USDT', 'TRON', '10000000');
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ invoice_id: invoice.id, status: 'confirmed', delivery: 'normal' });
    expect(answer.body.transaction_id).toMatch(/^[0-9a-f]{64}$/);
    await eventually(async () => received.length === 2, 5_000);
    expect(received.map((message) => message.parsed.transaction.status)).toEqual(['confirming', 'confirmed']);
    expect(received.every(verify)).toBe(true);
    expect(received[1]!.parsed).toMatchObject({
      invoice_id: invoice.id,
      transaction: { id: answer.body.transaction_id, amount: '10000000' },
      timestamp: clock.now().toISOString(),
    });
  });

  it('applies the delivery faults: twice, reversed, late and never', async () => {
    const invoice = (await createInvoice('USDT', 'TRON')).body;
    const twice = (await deposit(invoice.address, 'USDT', 'TRON', '1000', 'twice')).body.transaction_id;
    await eventually(async () => received.filter((message) => message.parsed.transaction.id === twice).length === 3, 5_000);
    expect(
      received.filter((message) => message.parsed.transaction.id === twice).map((message) => message.parsed.transaction.status),
    ).toEqual(['confirming', 'confirmed', 'confirmed']);

    const reversed = (await deposit(invoice.address, 'USDT', 'TRON', '1000', 'reversed')).body.transaction_id;
    await eventually(async () => received.filter((message) => message.parsed.transaction.id === reversed).length === 2, 5_000);
    expect(
      received.filter((message) => message.parsed.transaction.id === reversed).map((message) => message.parsed.transaction.status),
    ).toEqual(['confirmed', 'confirming']);

    const sentAt = Date.now();
    const late = (await deposit(invoice.address, 'USDT', 'TRON', '1000', 'late')).body.transaction_id;
    const never = (await deposit(invoice.address, 'USDT', 'TRON', '1000', 'never')).body.transaction_id;
    await eventually(async () => received.filter((message) => message.parsed.transaction.id === late).length === 2, 5_000);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(400);
    expect(received.some((message) => message.parsed.transaction.id === never)).toBe(false);
    expect((await api('GET', `/sandbox/deliveries?transaction_id=${never}`, undefined, {})).body.attempts).toEqual([]);
    // The undelivered payment is still on the invoice for reconciliation to find.
    expect(
      (await api('GET', `/v1/invoices/${invoice.id}`)).body.transactions.map((transaction: { id: string }) => transaction.id),
    ).toContain(never);
  });

  it('retries a failed postback with backoff until the receiver accepts it', async () => {
    const invoice = (await createInvoice('USDT', 'TRON')).body;
    scriptedAnswers = [503, 500];
    const transactionId = (await deposit(invoice.address, 'USDT', 'TRON', '1000')).body.transaction_id;
    await eventually(async () => received.filter((message) => message.parsed.transaction.id === transactionId).length === 4, 5_000);
    const attempts = (await api('GET', `/sandbox/deliveries?transaction_id=${transactionId}`, undefined, {})).body.attempts;
    expect(attempts.map((attempt: { http_status: number; outcome: string }) => [attempt.http_status, attempt.outcome])).toEqual([
      [503, 'retrying'],
      [500, 'retrying'],
      [200, 'delivered'],
      [200, 'delivered'],
    ]);
  });

  it('keeps its state in its own database across instances', async () => {
    const invoice = (await createInvoice('LTC', 'LTC')).body;
    const second = await createSandboxApp({
      config,
      database: harness.database,
      clock,
      logger: createLogger('crypto-sandbox', { level: 'silent' }),
    });
    try {
      const seen = await second.invoices.get(invoice.id);
      expect(seen).toMatchObject({ id: invoice.id, address: invoice.address, status: 'pending' });
    } finally {
      await second.stop(1_000);
    }
  });
});
