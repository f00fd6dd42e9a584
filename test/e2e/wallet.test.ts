import crypto from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { startWalletStack, type StackCustomer, type WalletStack } from './wallet-stack';

/**
 * The wallet story over REST: real gateway, payments, crypto-sandbox and a real wallet process, on the real
 * store. Payments, sandbox and gateway share a ManualClock, so the 30-minute quote window is crossed by
 * moving the clock instead of waiting.
 */
let stack: WalletStack;
let nats: NatsConnection;
const credited: Array<{ customer_id: string; entry_id: string; balance_eur_cents: number }> = [];

beforeAll(async () => {
  nats = await connect({ servers: inject('natsUrl') });
  const subscription = nats.subscribe('events.wallet.credited');
  void (async () => {
    for await (const message of subscription) credited.push(JSON.parse(new TextDecoder().decode(message.data)));
  })();
  stack = await startWalletStack({
    mongodbUrl: inject('mongodbUrl'),
    natsUrl: inject('natsUrl'),
    wallet: 'process',
    sandboxEnv: { POSTBACK_LATE_DELAY_MS: '1500' },
  });
});

afterAll(async () => {
  await stack?.close();
  await nats?.close();
});

afterEach(async () => {
  const report = await stack.audit();
  expect(report.breaches).toEqual([]);
  expect(report.ok).toBe(true);
});

interface Topup {
  id: number;
  status: string;
  amount_eur_cents: number;
  credited_eur_cents: number;
  deposit_address: string;
  deposit_amount: string;
  deposit_amount_decimal: string;
  asset_code: string;
  blockchain_code: string;
  expires_at: string;
}

async function createTopup(customer: StackCustomer, amount: number, asset = 'USDT', chain = 'TRON'): Promise<Topup> {
  const response = await stack.request('POST', '/v1/wallet/topup', {
    key: customer.full_key,
    body: { amount_eur_cents: amount, asset_code: asset, blockchain_code: chain },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as Topup;
}

const getTopup = async (customer: StackCustomer, id: number) =>
  (await stack.request('GET', `/v1/wallet/topup/${id}`, { key: customer.read_key })).body as Topup;
const getWallet = async (customer: StackCustomer) => (await stack.request('GET', '/v1/wallet', { key: customer.read_key })).body;

async function deposit(
  topup: Topup,
  amount: bigint | string,
  delivery = 'normal',
): Promise<{ transaction_id: string; invoice_id: string; received_at: string }> {
  const response = await stack.sandboxRequest('POST', '/sandbox/deposits', {
    address: topup.deposit_address,
    asset_code: topup.asset_code,
    blockchain_code: topup.blockchain_code,
    amount: amount.toString(),
    delivery,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** The body the sandbox would send for a confirmed payment, for replay and tampering tests. */
function confirmedPostback(
  topup: Topup,
  payment: { transaction_id: string; invoice_id: string; received_at: string },
  amount: string,
  timestamp = stack.clock.now(),
): string {
  return JSON.stringify({
    type: 'transaction',
    delivery_id: `dlv_${crypto.randomBytes(6).toString('hex')}`,
    timestamp: timestamp.toISOString(),
    invoice_id: payment.invoice_id,
    order_id: String(topup.id),
    address: topup.deposit_address,
    asset_code: topup.asset_code,
    blockchain_code: topup.blockchain_code,
    transaction: {
      id: payment.transaction_id,
      amount,
      amount_decimal: amount,
      status: 'confirmed',
      confirmations: 12,
      received_at: payment.received_at,
    },
  });
}

/** Quoted credit for a running total of units, as the credit rules define it (rounded down). */
const quotedCents = (units: bigint, topup: Topup) => Number((units * BigInt(topup.amount_eur_cents)) / BigInt(topup.deposit_amount));

describe('assets', () => {
  it('refuses 999 and 50001 with 400 amount_out_of_range, and offers the high-minimum coin at 20000 but not at 1000', async () => {
    const customer = await stack.newCustomer();
    for (const amount of [999, 50001, 0]) {
      const response = await stack.request('GET', `/v1/wallet/assets?amount_eur_cents=${amount}`, { key: customer.read_key });
      expect(response.status, String(amount)).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'amount_out_of_range', param: 'amount_eur_cents' });
    }
    const small = await stack.request('GET', '/v1/wallet/assets?amount_eur_cents=1000', { key: customer.read_key });
    const large = await stack.request('GET', '/v1/wallet/assets?amount_eur_cents=20000', { key: customer.read_key });
    expect(small.status).toBe(200);
    const pairs = (rows: Array<{ asset_code: string; blockchain_code: string }>) =>
      rows.map((row) => `${row.asset_code}/${row.blockchain_code}`);
    expect(pairs(small.body)).not.toContain('BTC/BTC');
    expect(pairs(large.body)).toContain('BTC/BTC');
    expect(pairs(small.body)).toContain('USDT/TRON');
    const btc = large.body.find((row: { asset_code: string }) => row.asset_code === 'BTC');
    expect(Object.keys(btc).sort()).toEqual([
      'amount',
      'asset_code',
      'asset_name',
      'blockchain_code',
      'blockchain_name',
      'decimals',
      'display_decimals',
      'is_evm',
      'is_stable',
      'min_amount_eur_cents',
    ]);
    expect(btc).toMatchObject({ is_stable: false, is_evm: false, decimals: 8 });
    expect(btc.amount).toMatch(/^0\.\d{1,8}$/);
    for (const row of [...small.body, ...large.body]) {
      expect(Number.isSafeInteger(row.min_amount_eur_cents), row.asset_code).toBe(true);
      expect(row.min_amount_eur_cents).toBeGreaterThanOrEqual(1000);
    }
    expect(small.body.every((row: { min_amount_eur_cents: number }) => row.min_amount_eur_cents <= 1000)).toBe(true);
    expect(large.body.every((row: { min_amount_eur_cents: number }) => row.min_amount_eur_cents <= 20000)).toBe(true);
  });

  it("accepts a top-up of exactly a pair's min_amount_eur_cents and refuses a cent less with a 400 that creates nothing", async () => {
    const customer = await stack.newCustomer();
    const rows = (await stack.request('GET', '/v1/wallet/assets?amount_eur_cents=50000', { key: customer.read_key })).body as Array<{
      asset_code: string;
      blockchain_code: string;
      min_amount_eur_cents: number;
    }>;
    const btc = rows.find((row) => row.asset_code === 'BTC' && row.blockchain_code === 'BTC')!;
    expect(btc.min_amount_eur_cents).toBeGreaterThan(1000);
    const below = btc.min_amount_eur_cents - 1;
    const offeredBelow = (await stack.request('GET', `/v1/wallet/assets?amount_eur_cents=${below}`, { key: customer.read_key })).body;
    expect(offeredBelow.some((row: { asset_code: string }) => row.asset_code === 'BTC')).toBe(false);
    const refused = await stack.request('POST', '/v1/wallet/topup', {
      key: customer.full_key,
      body: { amount_eur_cents: below, asset_code: 'BTC', blockchain_code: 'BTC' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_request',
      param: 'asset_code',
      details: { minimum_eur_cents: btc.min_amount_eur_cents },
    });
    expect((await getWallet(customer)).pending_topups).toEqual([]);
    const topup = await createTopup(customer, btc.min_amount_eur_cents, 'BTC', 'BTC');
    expect(topup).toMatchObject({ status: 'pending', amount_eur_cents: btc.min_amount_eur_cents, asset_code: 'BTC' });
    expect((await getWallet(customer)).pending_topups.map((pending: { id: number }) => pending.id)).toEqual([topup.id]);
  });
});

describe('the top-up story', () => {
  it('goes pending → partial → paid, and the balance moves only when the signed postback arrives', async () => {
    const customer = await stack.newCustomer();
    const forbidden = await stack.request('POST', '/v1/wallet/topup', {
      key: customer.read_key,
      body: { amount_eur_cents: 5000, asset_code: 'USDT', blockchain_code: 'TRON' },
    });
    expect(forbidden.status).toBe(403);

    const topup = await createTopup(customer, 5000);
    expect(topup).toMatchObject({
      status: 'pending',
      amount_eur_cents: 5000,
      credited_eur_cents: 0,
      asset_code: 'USDT',
      blockchain_code: 'TRON',
    });
    expect(topup.deposit_address).toMatch(/^T/);
    expect(BigInt(topup.deposit_amount)).toBeGreaterThan(0n);
    expect(new Date(topup.expires_at).getTime() - stack.clock.now().getTime()).toBe(30 * 60_000);
    let wallet = await getWallet(customer);
    expect(wallet.balance_eur_cents).toBe(0);
    expect(wallet.pending_topups).toEqual([
      {
        id: topup.id,
        status: 'pending',
        amount_eur_cents: 5000,
        credited_eur_cents: 0,
        asset_code: 'USDT',
        blockchain_code: 'TRON',
        expires_at: topup.expires_at,
      },
    ]);

    const total = BigInt(topup.deposit_amount);
    const half = total / 2n;
    await deposit(topup, half, 'late');
    // The coin is on chain, but the postback has not come: nothing is credited yet.
    expect(await getTopup(customer, topup.id)).toMatchObject({ status: 'pending', credited_eur_cents: 0 });
    expect((await getWallet(customer)).balance_eur_cents).toBe(0);
    const partial = await eventually(async () => {
      const current = await getTopup(customer, topup.id);
      return current.status === 'partial' ? current : undefined;
    }, 15_000);
    expect(partial.credited_eur_cents).toBe(quotedCents(half, topup));
    wallet = await getWallet(customer);
    expect(wallet.balance_eur_cents).toBe(partial.credited_eur_cents);
    expect(wallet.pending_topups.map((entry: { id: number; status: string }) => [entry.id, entry.status])).toEqual([[topup.id, 'partial']]);

    await deposit(topup, total - half);
    const paid = await eventually(async () => {
      const current = await getTopup(customer, topup.id);
      return current.status === 'paid' ? current : undefined;
    }, 15_000);
    // Two halves credit exactly the quoted amount: rounding applies to the running total.
    expect(paid.credited_eur_cents).toBe(5000);
    wallet = await getWallet(customer);
    expect(wallet.balance_eur_cents).toBe(5000);
    expect(wallet.pending_topups).toEqual([]);
    expect(await stack.ledgerEntries(customer.customer_id)).toBe(2);
    // Each credit is announced for billing (events.wallet.credited), with the balance after it.
    const announced = await eventually(async () => {
      const mine = credited.filter((event) => event.customer_id === customer.customer_id);
      return new Set(mine.map((event) => event.entry_id)).size === 2 ? mine : undefined;
    }, 5_000);
    expect(announced.every((event) => event.entry_id.startsWith('topup:sandbox:'))).toBe(true);
    expect(Math.max(...announced.map((event) => event.balance_eur_cents))).toBe(5000);
  });

  it('credits the extra of an over-payment', async () => {
    const customer = await stack.newCustomer();
    const topup = await createTopup(customer, 5000, 'USDC', 'POLYGON');
    const sent = BigInt(topup.deposit_amount) + BigInt(topup.deposit_amount) / 2n;
    await deposit(topup, sent);
    const paid = await eventually(async () => {
      const current = await getTopup(customer, topup.id);
      return current.status === 'paid' ? current : undefined;
    }, 15_000);
    expect(paid.credited_eur_cents).toBe(quotedCents(sent, topup));
    expect(paid.credited_eur_cents).toBeGreaterThanOrEqual(7499);
    expect((await getWallet(customer)).balance_eur_cents).toBe(paid.credited_eur_cents);
  });

  it('fails an expired quote, cancels the invoice at the provider, and still credits coin that arrives later at the market rate', async () => {
    const customer = await stack.newCustomer();
    const topup = await createTopup(customer, 2000, 'ETH', 'ETH');
    stack.clock.advanceMs(31 * 60_000);
    // Expiry is visible on read before the sweep records it.
    expect((await getTopup(customer, topup.id)).status).toBe('failed');
    expect((await getWallet(customer)).pending_topups).toEqual([]);
    const sweep = await stack.payments.topups.expireDue(500);
    expect(sweep.expired).toBeGreaterThanOrEqual(1);
    const invoices = await stack.mongo
      .db(`${stack.prefix}payments`)
      .collection('topups')
      .findOne({ _id: String(topup.id) as never });
    const atProvider = await stack.sandboxRequest('GET', `/v1/invoices/${invoices!.invoice_id}`);
    expect(atProvider.body.status).toBe('cancelled');

    const rates = await stack.sandboxRequest('GET', '/v1/assets');
    const ethRate = rates.body.assets.find(
      (asset: { asset_code: string; blockchain_code: string }) => asset.asset_code === 'ETH' && asset.blockchain_code === 'ETH',
    ).rate_eur as string;
    const sent = BigInt(topup.deposit_amount);
    await deposit(topup, sent);
    const settled = await eventually(async () => {
      const current = await getTopup(customer, topup.id);
      return current.credited_eur_cents > 0 ? current : undefined;
    }, 15_000);
    // Worth what it is worth now: units × market rate, rounded down (rate has 8 decimals, ETH 18).
    const [whole, fraction = ''] = ethRate.split('.');
    const scaledRate = BigInt(whole!) * 10n ** 8n + BigInt(fraction.padEnd(8, '0'));
    const expected = Number((sent * 100n * scaledRate) / 10n ** 26n);
    expect(settled.credited_eur_cents).toBe(expected);
    expect(settled.status).toBe(expected >= 2000 ? 'paid' : 'partial');
    expect((await getWallet(customer)).balance_eur_cents).toBe(expected);
  });
});

describe('postbacks', () => {
  it('credits the same postback once when delivered 5 times in a row and 50 times in parallel', async () => {
    const customer = await stack.newCustomer();
    const first = await createTopup(customer, 3000);
    const firstPayment = await deposit(first, first.deposit_amount, 'never');
    const body = confirmedPostback(first, firstPayment, first.deposit_amount);
    const outcomes: string[] = [];
    for (let delivery = 0; delivery < 5; delivery++) {
      const response = await stack.postRawPostback(body);
      expect(response.status).toBe(200);
      outcomes.push(response.body.outcome);
    }
    // Recorded once; each later delivery finds it in the inbox or already credited.
    expect(outcomes).toEqual(['recorded', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
    await eventually(async () => expect((await getWallet(customer)).balance_eur_cents).toBe(3000));

    const second = await createTopup(customer, 4000);
    const secondPayment = await deposit(second, second.deposit_amount, 'never');
    const parallelBody = confirmedPostback(second, secondPayment, second.deposit_amount);
    const responses = await Promise.all(Array.from({ length: 50 }, () => stack.postRawPostback(parallelBody)));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(responses.filter((response) => response.body.outcome === 'recorded').length).toBe(1);
    expect(responses.filter((response) => response.body.outcome === 'duplicate').length).toBe(49);
    await eventually(async () => expect((await getWallet(customer)).balance_eur_cents).toBe(7000));
    expect(await getTopup(customer, second.id)).toMatchObject({ status: 'paid', credited_eur_cents: 4000 });
    expect(await stack.ledgerEntries(customer.customer_id)).toBe(2);
  });

  it('refuses a bad signature, a one-byte change, a missing or malformed header and a stale timestamp with 401, writing nothing', async () => {
    const customer = await stack.newCustomer();
    const topup = await createTopup(customer, 2500);
    const payment = await deposit(topup, topup.deposit_amount, 'never');
    const body = confirmedPostback(topup, payment, topup.deposit_amount);
    const signature = stack.sign(body);
    const oneByteChanged = body.replace(
      `"amount":"${topup.deposit_amount}"`,
      `"amount":"${topup.deposit_amount.slice(0, -1)}${(Number(topup.deposit_amount.slice(-1)) + 1) % 10}"`,
    );
    expect(oneByteChanged.length).toBe(body.length);
    expect(oneByteChanged).not.toBe(body);
    const otherSecret = `sha256=${crypto.createHmac('sha256', 'some-other-secret-value').update(body).digest('hex')}`;
    const stale = confirmedPostback(topup, payment, topup.deposit_amount, new Date(stack.clock.now().getTime() - 10 * 60_000));
    const attempts: Array<[string, string, string | null]> = [
      ['wrong secret', body, otherSecret],
      ['one byte changed', oneByteChanged, signature],
      ['missing header', body, null],
      ['malformed header', body, 'sha256=not-hex'],
      ['bare hex', body, signature.replace('sha256=', '')],
      ['stale timestamp', stale, stack.sign(stale)],
    ];
    for (const [label, attemptBody, attemptSignature] of attempts) {
      const response = await stack.postRawPostback(attemptBody, attemptSignature);
      expect(response.status, label).toBe(401);
      expect(response.body.error.code, label).toBe('unauthenticated');
    }
    expect(await stack.ledgerEntries(customer.customer_id)).toBe(0);
    expect(await getTopup(customer, topup.id)).toMatchObject({ status: 'pending', credited_eur_cents: 0 });
    expect((await stack.postRawPostback(body, signature)).body.outcome).toBe('recorded');
    await eventually(async () => expect((await getWallet(customer)).balance_eur_cents).toBe(2500));
  });

  it('ends in the right state when confirming and confirmed arrive reversed, or the confirmation twice', async () => {
    const customer = await stack.newCustomer();
    const reversed = await createTopup(customer, 1500);
    const reversedPayment = await deposit(reversed, reversed.deposit_amount, 'reversed');
    const twice = await createTopup(customer, 1700);
    const twicePayment = await deposit(twice, twice.deposit_amount, 'twice');
    for (const [payment, count] of [
      [reversedPayment, 2],
      [twicePayment, 3],
    ] as const) {
      await eventually(async () => {
        const deliveries = (await stack.sandboxRequest('GET', `/sandbox/deliveries?transaction_id=${payment.transaction_id}`)).body
          .attempts as Array<{ outcome: string }>;
        return deliveries.filter((attempt) => attempt.outcome === 'delivered').length === count;
      }, 15_000);
    }
    const statuses = (
      await stack.sandboxRequest('GET', `/sandbox/deliveries?transaction_id=${reversedPayment.transaction_id}`)
    ).body.attempts.map((attempt: { status: string }) => attempt.status);
    expect(statuses).toEqual(['confirmed', 'confirming']);
    expect(await getTopup(customer, reversed.id)).toMatchObject({ status: 'paid', credited_eur_cents: 1500 });
    expect(await getTopup(customer, twice.id)).toMatchObject({ status: 'paid', credited_eur_cents: 1700 });
    expect((await getWallet(customer)).balance_eur_cents).toBe(3200);
    expect(await stack.ledgerEntries(customer.customer_id)).toBe(2);
  });

  it('credits a payment whose postback never arrives through the reconciliation poller', async () => {
    const customer = await stack.newCustomer();
    const topup = await createTopup(customer, 1200);
    await deposit(topup, topup.deposit_amount, 'never');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await getTopup(customer, topup.id)).toMatchObject({ status: 'pending', credited_eur_cents: 0 });
    let credited = 0;
    for (let pass = 0; pass < 50; pass++) {
      const step = await stack.payments.topups.reconcileStep(100);
      credited += step.credited;
      if (step.wrapped) break;
    }
    expect(credited).toBeGreaterThanOrEqual(1);
    expect(await getTopup(customer, topup.id)).toMatchObject({ status: 'paid', credited_eur_cents: 1200 });
    expect((await getWallet(customer)).balance_eur_cents).toBe(1200);
    // A second pass finds nothing new.
    for (let pass = 0; pass < 50; pass++) if ((await stack.payments.topups.reconcileStep(100)).wrapped) break;
    expect(await stack.ledgerEntries(customer.customer_id)).toBe(1);
  });
});

describe('the balance cap', () => {
  it('refuses a top-up over the cap, holds what a payment brings beyond it, and moves it in when room appears', async () => {
    const customer = await stack.newCustomer();
    for (const amount of [50_000, 49_000]) {
      const topup = await createTopup(customer, amount);
      await deposit(topup, topup.deposit_amount);
      await eventually(async () => (await getTopup(customer, topup.id)).status === 'paid', 15_000);
    }
    expect((await getWallet(customer)).balance_eur_cents).toBe(99_000);
    const over = await stack.request('POST', '/v1/wallet/topup', {
      key: customer.full_key,
      body: { amount_eur_cents: 2000, asset_code: 'USDT', blockchain_code: 'TRON' },
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'balance_cap_exceeded', param: 'amount_eur_cents' });

    const last = await createTopup(customer, 1000);
    await deposit(last, BigInt(last.deposit_amount) * 3n);
    await eventually(async () => (await getTopup(customer, last.id)).status === 'paid', 15_000);
    const capped = await getWallet(customer);
    expect(capped.balance_eur_cents).toBe(100_000);
    expect(capped.held_eur_cents).toBe(2000);
    // Nothing fits any more: even the minimum top-up is refused while money is held.
    expect(
      (
        await stack.request('POST', '/v1/wallet/topup', {
          key: customer.full_key,
          body: { amount_eur_cents: 1000, asset_code: 'USDT', blockchain_code: 'TRON' },
        })
      ).status,
    ).toBe(400);

    // A charge (billing's seat renewal) makes room: held money moves in within the same ledger entry.
    const seat = await stack.walletClient.call('Debit', {
      customer_id: customer.customer_id,
      entry_id: `seat:test:${customer.customer_id}:1`,
      amount_eur_cents: 1500,
      reason: 'seat',
      reference: 'seat_test',
    });
    expect(seat).toMatchObject({ balance_eur_cents: 100_000, held_eur_cents: 500 });
    await stack.walletClient.call('Debit', {
      customer_id: customer.customer_id,
      entry_id: `seat:test:${customer.customer_id}:2`,
      amount_eur_cents: 1000,
      reason: 'seat',
      reference: 'seat_test',
    });
    const after = await getWallet(customer);
    expect(after.balance_eur_cents).toBe(99_500);
    expect(after.held_eur_cents).toBe(0);
  });
});

describe('privacy', () => {
  it("answers 404 for another customer's top-up", async () => {
    const owner = await stack.newCustomer();
    const stranger = await stack.newCustomer();
    const topup = await createTopup(owner, 1000);
    const response = await stack.request('GET', `/v1/wallet/topup/${topup.id}`, { key: stranger.full_key });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
    expect((await getWallet(stranger)).pending_topups).toEqual([]);
    expect((await stack.request('GET', '/v1/wallet/topup/999999999', { key: owner.read_key })).status).toBe(404);
  });
});
