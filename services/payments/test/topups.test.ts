import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { createLogger } from '@mtx/shared/logger';
import { databaseName } from '@mtx/shared/mongo';
import { nanos } from 'nats';
import { customerEventChannel, customerEventId, developmentEventIdSecret, type CustomerEvent } from '@mtx/shared/customer-events';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { eventually } from '@mtx/shared/testing';
import { inboxSweepIntervalMs, startWalletStack, type WalletStack } from '../../../test/e2e/wallet-stack';
import { announcements } from '@mtx/shared/announcements';
import type { PaymentsApp } from '../src/app';
import { parseScaledDecimal } from '../src/domain/money';
import { createPaymentsStore } from '../src/store/payments-store';
import { startReplica, type Replica, type ReplicaOptions } from './replica';
import {
  payThroughSandbox as paySandbox,
  postbackBody as sandboxPostback,
  type PayableTopup,
  type SandboxPayment,
} from './sandbox-payments';

let stack: WalletStack;

beforeAll(async () => {
  stack = await startWalletStack({ mongodbUrl: inject('mongodbUrl'), natsUrl: inject('natsUrl') });
});

afterAll(async () => stack?.close());

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

const customerId = () => `cus_${crypto.randomBytes(6).toString('hex')}`;
const store = () => createPaymentsStore(stack.mongo.db(databaseName(stack.prefix, 'payments')));
const payments = <T = any>(method: string, request: unknown) => stack.paymentsClient.call<T>(method, request);
/** A USDT-on-TRON top-up of `amountEurCents` over the gRPC API. */
const createTronTopup = (customer: string, amountEurCents: number) =>
  payments('CreateTopup', { customer_id: customer, amount_eur_cents: amountEurCents, asset_code: 'USDT', blockchain_code: 'TRON' });

const payThroughSandbox = (topup: Omit<PayableTopup, 'id'>, amount: string) => paySandbox(stack, topup, amount);
const postbackBody = (topup: PayableTopup, payment: SandboxPayment, amount: string, status?: string) =>
  sandboxPostback(stack, topup, payment, amount, status);

const handle = (body: string, provider = 'sandbox', signature = stack.sign(body)) =>
  payments('HandlePostback', {
    provider,
    body: Buffer.from(body),
    headers: { 'x-signature': signature, 'content-type': 'application/json' },
  });

describe('assets', () => {
  it('quotes each offered pair rounded up to the asset decimals, at the provider rate of the moment', async () => {
    const { assets } = await payments<{ assets: Array<{ asset_code: string; blockchain_code: string; amount: string; decimals: number }> }>(
      'ListAssets',
      { amount_eur_cents: 3333 },
    );
    const rates = (await stack.sandboxRequest('GET', '/v1/assets')).body.assets as Array<{
      asset_code: string;
      blockchain_code: string;
      rate_eur: string;
      min_amount_eur_cents: number;
    }>;
    expect(assets.length).toBe(rates.filter((rate) => rate.min_amount_eur_cents <= 3333).length);
    for (const row of assets) {
      const rate = rates.find((candidate) => candidate.asset_code === row.asset_code && candidate.blockchain_code === row.blockchain_code)!;
      const [whole, fraction = ''] = row.amount.split('.');
      expect(fraction.length).toBeLessThanOrEqual(row.decimals);
      const units = BigInt(whole!) * 10n ** BigInt(row.decimals) + BigInt(fraction.padEnd(row.decimals, '0') || '0');
      const scale = 10n ** BigInt(row.decimals + 8);
      const scaledRate = parseScaledDecimal(rate.rate_eur, 8);
      expect(units * scaledRate * 100n >= 3333n * scale, row.asset_code).toBe(true);
      expect((units - 1n) * scaledRate * 100n < 3333n * scale, row.asset_code).toBe(true);
    }
    await expect(payments('ListAssets', { amount_eur_cents: 999 })).rejects.toMatchObject({ code: 'amount_out_of_range' });
    await expect(payments('ListAssets', { amount_eur_cents: 50001 })).rejects.toMatchObject({ code: 'amount_out_of_range' });
  });

  it("gives each row its pair's minimum: a top-up of exactly that is offered and accepted, a cent less neither", async () => {
    type Row = { asset_code: string; blockchain_code: string; min_amount_eur_cents: number };
    const listed = (await stack.sandboxRequest('GET', '/v1/assets')).body.assets as Array<Row>;
    const pair = (row: { asset_code: string; blockchain_code: string }) => `${row.asset_code}/${row.blockchain_code}`;
    const everyPair = (await payments<{ assets: Row[] }>('ListAssets', { amount_eur_cents: 50_000 })).assets;
    expect(everyPair.map(pair).sort()).toEqual(listed.map(pair).sort());
    for (const row of everyPair) {
      const provider = listed.find((candidate) => pair(candidate) === pair(row))!;
      // The provider's minimum rounded up to the cent, never below the product's 1000-cent minimum top-up.
      expect(row.min_amount_eur_cents, pair(row)).toBe(Math.max(1000, Math.ceil(provider.min_amount_eur_cents)));
    }
    // Every pair above the product minimum (BTC at 15000, BNB at 1500, the Ethereum tokens at 2000), and one at it.
    const above = everyPair.filter((row) => row.min_amount_eur_cents > 1000);
    expect(above.length).toBeGreaterThan(0);
    for (const row of [...above, everyPair.find((candidate) => candidate.min_amount_eur_cents === 1000)!]) {
      const minimum = row.min_amount_eur_cents;
      const atMinimum = (await payments<{ assets: Row[] }>('ListAssets', { amount_eur_cents: minimum })).assets;
      expect(
        atMinimum.find((candidate) => pair(candidate) === pair(row)),
        pair(row),
      ).toMatchObject({ min_amount_eur_cents: minimum });
      const customer = customerId();
      const created = await payments('CreateTopup', { customer_id: customer, amount_eur_cents: minimum, ...codesOf(row) });
      expect(created, pair(row)).toMatchObject({ status: 'pending', amount_eur_cents: minimum, ...codesOf(row) });
      if (minimum - 1 < 1000) continue;
      const below = (await payments<{ assets: Row[] }>('ListAssets', { amount_eur_cents: minimum - 1 })).assets;
      expect(below.map(pair), pair(row)).not.toContain(pair(row));
      const before = await store().topups.countDocuments({ customer_id: customer });
      const refused = await payments('CreateTopup', { customer_id: customer, amount_eur_cents: minimum - 1, ...codesOf(row) }).catch(
        (caught: unknown) => caught,
      );
      expect(refused, pair(row)).toBeInstanceOf(AppError);
      expect(refused, pair(row)).toMatchObject({ code: 'invalid_request', param: 'asset_code', details: { minimum_eur_cents: minimum } });
      expect(await store().topups.countDocuments({ customer_id: customer })).toBe(before);
    }
  });
});

const codesOf = (row: { asset_code: string; blockchain_code: string }) => ({
  asset_code: row.asset_code,
  blockchain_code: row.blockchain_code,
});

describe('creating top-ups', () => {
  it('refuses pairs not offered for the amount, is_evm off an EVM chain and bad input, writing nothing', async () => {
    const customer = customerId();
    const before = await store().topups.countDocuments({});
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ amount_eur_cents: 1000, asset_code: 'BTC', blockchain_code: 'BTC' }, 'invalid_request', 'asset_code'],
      [{ amount_eur_cents: 5000, asset_code: 'USDT', blockchain_code: 'SOL' }, 'invalid_request', 'asset_code'],
      [{ amount_eur_cents: 5000, asset_code: 'USDT', blockchain_code: 'TRON', is_evm: true }, 'invalid_request', 'is_evm'],
      [{ amount_eur_cents: 500, asset_code: 'USDT', blockchain_code: 'TRON' }, 'amount_out_of_range', 'amount_eur_cents'],
      [{ amount_eur_cents: 60000, asset_code: 'USDT', blockchain_code: 'TRON' }, 'amount_out_of_range', 'amount_eur_cents'],
    ];
    for (const [request, code, param] of cases) {
      const error = await payments('CreateTopup', { customer_id: customer, ...request }).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(request)).toBeInstanceOf(AppError);
      expect(error, JSON.stringify(request)).toMatchObject({ code, param });
    }
    await expect(
      payments('CreateTopup', { customer_id: 'bad:id', amount_eur_cents: 5000, asset_code: 'USDT', blockchain_code: 'TRON' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await store().topups.countDocuments({})).toBe(before);
  });

  it('gives an EVM deposit address and a wallet-connect URI when is_evm is asked for on an EVM chain', async () => {
    const customer = customerId();
    const plain = await payments('CreateTopup', {
      customer_id: customer,
      amount_eur_cents: 2500,
      asset_code: 'USDC',
      blockchain_code: 'ETH',
      is_evm: false,
    });
    expect(plain.deposit_address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(plain.payment_uri).toBeUndefined();
    const web3 = await payments('CreateTopup', {
      customer_id: customer,
      amount_eur_cents: 2500,
      asset_code: 'USDC',
      blockchain_code: 'ETH',
      is_evm: true,
    });
    expect(web3).toMatchObject({ is_evm: true });
    expect(web3.payment_uri).toBe(
      `ethereum:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48@1/transfer?address=${web3.deposit_address}&uint256=${web3.deposit_amount}`,
    );
  });

  it('allocates distinct integer ids under concurrency, across replicas, and hides top-ups from other customers', async () => {
    const replica = await secondReplica({});
    try {
      const customer = customerId();
      const created = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          index % 2 === 0
            ? payments('CreateTopup', {
                customer_id: customer,
                amount_eur_cents: 1000 + index,
                asset_code: 'USDT',
                blockchain_code: 'TRON',
              })
            : replica.app.topups.createTopup({
                customerId: customer,
                amountEurCents: 1000 + index,
                assetCode: 'USDT',
                blockchainCode: 'TRON',
              }),
        ),
      );
      const ids = created.map((topup) => Number(topup.id));
      expect(new Set(ids).size).toBe(12);
      expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
      const pending = await payments<{ topups: Array<{ id: number }> }>('ListPendingTopups', { customer_id: customer });
      expect(pending.topups.map((topup) => Number(topup.id)).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      await expect(payments('GetTopup', { customer_id: customerId(), id: ids[0] })).rejects.toMatchObject({ code: 'not_found' });
      expect((await payments<{ topups: unknown[] }>('ListPendingTopups', { customer_id: customerId() })).topups).toEqual([]);
    } finally {
      await replica.close();
    }
  });

  it('gives random ids across the safe-integer range that say nothing of volume or order; the sweeps walk a private gapless sequence', async () => {
    const customer = customerId();
    const ids: number[] = [];
    for (let index = 0; index < 16; index++) ids.push(Number((await createTronTopup(customer, 1000 + index)).id));
    expect(new Set(ids).size).toBe(16);
    expect(ids.every((id) => Number.isSafeInteger(id) && id >= 1)).toBe(true);
    // Sequential ids would differ by one; random ones over 2^53 spread far (16 draws within 2^40 of each other:
    // about one chance in 2^200) and come in no order.
    expect(Math.max(...ids) - Math.min(...ids)).toBeGreaterThan(2 ** 40);
    expect([...ids].sort((a, b) => a - b)).not.toEqual(ids);
    // The next integer after a top-up's id is nobody's top-up.
    await expect(payments('GetTopup', { customer_id: customer, id: ids[0]! + 1 })).rejects.toMatchObject({ code: 'not_found' });
    // The creation sequence: one entry per top-up, in creation order, gapless.
    const positions: number[] = [];
    for (const id of ids) {
      const entries = await store().topupSequence.find({ topup_id: id }).toArray();
      expect(entries).toHaveLength(1);
      positions.push(Number(entries[0]!._id));
    }
    expect(positions).toEqual(positions.map((_, index) => positions[0]! + index));
    // Nothing of the sequence is in what the customer sees.
    const seen = JSON.stringify(await payments('GetTopup', { customer_id: customer, id: ids[5] }));
    expect(seen).not.toContain(`:${positions[5]},`);
  });
});

describe('postbacks', () => {
  it('refuses unknown providers and invoices, ignores statuses that move no money, and rejects unparseable signed bodies', async () => {
    const customer = customerId();
    const topup = await createTronTopup(customer, 1000);
    const payment = await payThroughSandbox(topup, topup.deposit_amount);
    await expect(handle(postbackBody(topup, payment, topup.deposit_amount), 'nowpayments')).rejects.toMatchObject({ code: 'not_found' });
    await expect(handle(postbackBody(topup, { ...payment, invoice_id: 'inv_unknown' }, topup.deposit_amount))).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await handle(postbackBody(topup, payment, topup.deposit_amount, 'confirming'))).toMatchObject({
      outcome: 'ignored',
      credited_eur_cents: 0,
    });
    await expect(handle('not json at all')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(handle(JSON.stringify({ type: 'refund' }))).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await store().events.countDocuments({ topup_id: Number(topup.id) })).toBe(0);
    expect(await stack.ledgerEntries(customer)).toBe(0);
    expect(await stack.inboxRecord(`sandbox:${payment.transaction_id}`)).toBeNull();
    expect(await handle(postbackBody(topup, payment, topup.deposit_amount))).toMatchObject({ outcome: 'recorded', credited_eur_cents: 0 });
    await eventually(async () =>
      expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({ status: 'paid' }),
    );
    expect(await stack.ledgerEntries(customer)).toBe(1);
  });

  it('acknowledges from the inbox: recorded once, every redelivery a duplicate, credited once, the record kept as the receipt', async () => {
    const customer = customerId();
    const topup = await createTronTopup(customer, 2500);
    const payment = await payThroughSandbox(topup, topup.deposit_amount);
    const body = postbackBody(topup, payment, topup.deposit_amount);
    const first = await Promise.all(Array.from({ length: 4 }, () => handle(body)));
    expect(first.map((answer) => answer.outcome).sort()).toEqual(['duplicate', 'duplicate', 'duplicate', 'recorded']);
    expect(await stack.inboxRecord(`sandbox:${payment.transaction_id}`)).toMatchObject({
      topup_id: Number(topup.id),
      customer_id: customer,
      transaction_id: payment.transaction_id,
      amount_units: topup.deposit_amount,
    });
    await eventually(async () =>
      expect(await stack.walletClient.call('GetWallet', { customer_id: customer })).toMatchObject({ balance_eur_cents: 2500 }),
    );
    await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
    // Credited and settled: a later delivery is still a duplicate and changes nothing.
    expect(await handle(body)).toMatchObject({ outcome: 'duplicate', topup_id: topup.id, customer_id: customer });
    expect(await stack.inboxUnsettled()).toBe(0);
    expect(await stack.ledgerEntries(customer)).toBe(1);
    expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({ status: 'paid', credited_eur_cents: 2500 });
  });

  it('asks the wallet whether a payment is credited: another replica shows it paid, and its poll moves nothing again', async () => {
    const customer = customerId();
    const topup = await createTronTopup(customer, 1900);
    const payment = await payThroughSandbox(topup, topup.deposit_amount);
    expect(await handle(postbackBody(topup, payment, topup.deposit_amount))).toMatchObject({ outcome: 'recorded' });
    await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
    const invoiceId = (await store().topups.findOne({ _id: String(topup.id) }))!.invoice_id;
    const walletCalls: string[] = [];
    const replica = await secondReplica({
      wallet: (real) => ({
        ...real,
        call: <T>(method: string, request: unknown, options?: { deadlineMs?: number }) => {
          walletCalls.push(method);
          return real.call<T>(method, request, options);
        },
      }),
      // The provider lists this test's payment only, so earlier tests' top-ups do not count here.
      provider: (real) => ({
        ...real,
        getInvoice: async (id: string) => {
          const invoice = await real.getInvoice(id);
          return id === invoiceId ? invoice : { ...invoice, transactions: [] };
        },
      }),
    });
    const unreachable = await secondReplica({
      wallet: (real) => ({
        ...real,
        call: <T>(method: string, request: unknown, options?: { deadlineMs?: number }) =>
          method === 'FindEntries'
            ? Promise.reject<T>(new AppError('unavailable', 'wallet down (injected)'))
            : real.call<T>(method, request, options),
      }),
    });
    try {
      // The reconciliation poller finds the confirmed transaction, recorded and credited by the other replica.
      let credited = 0;
      for (;;) {
        const step = await replica.app.topups.reconcileStep(500);
        credited += step.credited;
        if (step.wrapped) break;
      }
      expect(credited).toBe(0);
      expect(walletCalls.filter((method) => method === 'CreditMany')).toEqual([]);
      expect(walletCalls.filter((method) => method === 'FindEntries')).toEqual(['FindEntries']);
      // Remembered: the view asks nothing more.
      expect(await replica.app.topups.getTopup(customer, Number(topup.id))).toMatchObject({ status: 'paid', credited_eur_cents: 1900 });
      expect(walletCalls.filter((method) => method === 'FindEntries')).toEqual(['FindEntries']);
      // A replica that cannot ask the wallet shows only what it knows: never paid before the balance has it.
      expect(await unreachable.app.topups.getTopup(customer, Number(topup.id))).toMatchObject({ status: 'pending', credited_eur_cents: 0 });
    } finally {
      await replica.close();
      await unreachable.close();
    }
    expect(await stack.ledgerEntries(customer)).toBe(1);
  });

  it('credits what was recorded while no crediting worker ran (a crash after the acknowledgement) once a worker runs again', async () => {
    const customer = customerId();
    const topup = await createTronTopup(customer, 1300);
    const payment = await payThroughSandbox(topup, topup.deposit_amount);
    const body = postbackBody(topup, payment, topup.deposit_amount);
    await stack.payments.topups.crediting.stop();
    try {
      expect(await handle(body)).toMatchObject({ outcome: 'recorded' });
      // Nothing takes it meanwhile: recorded, not credited, and its age is what the metric reports.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await stack.ledgerEntries(customer)).toBe(0);
      expect(await stack.inboxUnsettled()).toBe(1);
      expect((await stack.payments.topups.crediting.check()).oldestAgeMs).toBeGreaterThanOrEqual(250);
      expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({
        status: 'pending',
        credited_eur_cents: 0,
      });
      // The provider, having heard nothing it trusts, delivers again: a duplicate, still one record.
      expect(await handle(body)).toMatchObject({ outcome: 'duplicate' });
    } finally {
      await stack.payments.topups.crediting.start();
    }
    await eventually(async () =>
      expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({
        status: 'paid',
        credited_eur_cents: 1300,
      }),
    );
    await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
    expect((await stack.payments.topups.crediting.check()).oldestAgeMs).toBe(0);
    expect(await stack.ledgerEntries(customer)).toBe(1);
  });

  it("announces a customer's top-ups changed when a view changes: on creation and on the credit, not on the payment's record", async () => {
    const customer = customerId();
    const heard: number[] = [];
    const subscription = stack.nats.subscribe(announcements.topupsChanged.subject, {
      callback: (error, message) => {
        if (!error && announcements.topupsChanged.decode(message.data)?.customerId === customer) heard.push(Date.now());
      },
    });
    await stack.nats.flush();
    try {
      const topup = await createTronTopup(customer, 1500);
      await eventually(async () => expect(heard).toHaveLength(1));
      const body = postbackBody(topup, await payThroughSandbox(topup, topup.deposit_amount), topup.deposit_amount);
      expect(await handle(body)).toMatchObject({ outcome: 'recorded' });
      await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
      expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({ status: 'paid' });
      await stack.nats.flush();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toHaveLength(2);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('records postbacks on a replica with PAYMENTS_CREDITING_ENABLED=false and leaves their crediting to the others', async () => {
    // A started replica (see startReplica) with its crediting switched off.
    const recorder = await secondReplica({ environment: { PAYMENTS_CREDITING_ENABLED: 'false' } });
    const customer = customerId();
    await stack.payments.topups.crediting.stop();
    try {
      const topup = await recorder.app.topups.createTopup({
        customerId: customer,
        amountEurCents: 1100,
        assetCode: 'USDT',
        blockchainCode: 'TRON',
      });
      const body = postbackBody(topup, await payThroughSandbox(topup, topup.deposit_amount), topup.deposit_amount);
      const answer = await fetch(`http://127.0.0.1:${recorder.app.hooksPort}/v1/hooks/payments/sandbox`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': stack.sign(body) },
        body,
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ received: true, outcome: 'recorded' });
      // Its own worker would have taken the record by now; it stays in the inbox for another replica.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await stack.inboxUnsettled()).toBe(1);
      expect(await stack.ledgerEntries(customer)).toBe(0);
    } finally {
      await recorder.close();
      await stack.payments.topups.crediting.start();
    }
    await eventually(async () => expect(await stack.ledgerEntries(customer)).toBe(1));
    expect(await stack.walletClient.call('GetWallet', { customer_id: customer })).toMatchObject({ balance_eur_cents: 1100 });
    await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
  });

  it("credits on a replica that never saw the top-up from the inbox record's copy, reading nothing; a missed record costs a retry, not money", async () => {
    const customer = customerId();
    // Quoted and acknowledged by the stack's replica; credited by fresh ones, whose caches hold nothing of it.
    const topup = await createTronTopup(customer, 2400);
    const half = (BigInt(topup.deposit_amount) / 2n).toString();
    const rest = (BigInt(topup.deposit_amount) - BigInt(half)).toString();
    const first = postbackBody(topup, await payThroughSandbox(topup, half), half);
    const second = postbackBody(topup, await payThroughSandbox(topup, rest), rest);
    const creditOn = async (body: string) => {
      const replica = await cachingReplica({ pendingFreshMs: 0 });
      await stack.payments.topups.crediting.stop();
      try {
        await replica.app.topups.crediting.start();
        expect(await handle(body)).toMatchObject({ outcome: 'recorded' });
        await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
        return replica.finds;
      } finally {
        await replica.close();
        await stack.payments.topups.crediting.start();
      }
    };
    // Nothing recorded yet: the guess that the top-up has no records is right, and the crediting reads nothing.
    expect(await creditOn(first)).toEqual([]);
    expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({ status: 'partial' });
    // One record exists: the same guess collides on slot 1, the records are read, and the payment takes slot 2.
    const finds = await creditOn(second);
    expect(finds).toContain('topup_events');
    expect(finds).not.toContain('topups');
    expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({ status: 'paid', credited_eur_cents: 2400 });
    const events = await store()
      .events.find({ topup_id: Number(topup.id) })
      .sort({ seq: 1 })
      .toArray();
    expect(events.map((event) => [event.seq, event.amount_units])).toEqual([
      [1, half],
      [2, rest],
    ]);
    expect(await stack.walletClient.call('GetWallet', { customer_id: customer })).toMatchObject({ balance_eur_cents: 2400 });
    expect(await stack.ledgerEntries(customer)).toBe(2);
  });

  it('credits many different payments to one top-up arriving at once: each once, adding up exactly', async () => {
    const customer = customerId();
    const topup = await payments('CreateTopup', {
      customer_id: customer,
      amount_eur_cents: 7777,
      asset_code: 'USDC',
      blockchain_code: 'POLYGON',
    });
    const total = BigInt(topup.deposit_amount);
    const part = total / 10n;
    const parts = [...Array.from({ length: 9 }, () => part), total - part * 9n];
    const bodies: string[] = [];
    for (const amount of parts) bodies.push(postbackBody(topup, await payThroughSandbox(topup, amount.toString()), amount.toString()));
    // Each body delivered twice, all at once.
    const answers = await Promise.all([...bodies, ...bodies].map((body) => handle(body)));
    expect(answers.filter((answer) => answer.outcome === 'recorded').length).toBe(10);
    expect(answers.filter((answer) => answer.outcome === 'duplicate').length).toBe(10);
    await eventually(async () =>
      expect(await payments('GetTopup', { customer_id: customer, id: topup.id })).toMatchObject({
        status: 'paid',
        credited_eur_cents: 7777,
      }),
    );
    const events = await store()
      .events.find({ topup_id: Number(topup.id) })
      .sort({ seq: 1 })
      .toArray();
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await stack.walletClient.call('GetWallet', { customer_id: customer })).toMatchObject({ balance_eur_cents: 7777 });
    expect(await stack.ledgerEntries(customer)).toBe(10);
  });

  it('leaves a credit the wallet refuses unsettled, retries it sooner then less often, and credits it once when the wallet is back', async () => {
    let walletDown = true;
    const attemptsAtMs: number[] = [];
    // This replica alone takes the inbox's deliveries during the test.
    await stack.payments.topups.crediting.stop();
    const replica = await secondReplica({
      wallet: (real) => ({
        ...real,
        call: <T>(method: string, request: unknown, options?: { deadlineMs?: number }) => {
          if (method === 'CreditMany') attemptsAtMs.push(performance.now());
          if (method === 'CreditMany' && walletDown) return Promise.reject<T>(new AppError('unavailable', 'wallet down (injected)'));
          return real.call<T>(method, request, options);
        },
      }),
    });
    try {
      await replica.app.topups.crediting.start();
      const customer = customerId();
      const topup = await replica.app.topups.createTopup({
        customerId: customer,
        amountEurCents: 1800,
        assetCode: 'USDT',
        blockchainCode: 'TRON',
      });
      const payment = await payThroughSandbox(topup, topup.deposit_amount);
      const body = postbackBody(topup, payment, topup.deposit_amount);
      expect(await replica.app.topups.handlePostback('sandbox', Buffer.from(body), { 'x-signature': stack.sign(body) })).toMatchObject({
        outcome: 'recorded',
      });
      // Refused again and again: the retries come 100 ms after the first failure, then twice as far apart each.
      await eventually(async () => expect(attemptsAtMs.length).toBeGreaterThanOrEqual(4), 5_000, 10);
      const gapsMs = attemptsAtMs.slice(1, 4).map((atMs, index) => atMs - attemptsAtMs[index]!);
      expect(gapsMs[0]).toBeGreaterThanOrEqual(90);
      expect(gapsMs[1]!).toBeGreaterThan(gapsMs[0]! * 1.4);
      expect(gapsMs[2]!).toBeGreaterThan(gapsMs[1]! * 1.4);
      const recorded = await store().events.findOne({ topup_id: topup.id });
      expect(recorded).toMatchObject({ eur_cents: 1800 });
      expect(await stack.inboxUnsettled()).toBe(1);
      expect(await stack.ledgerEntries(customer)).toBe(0);
      // Not credited yet as far as the customer can see: the balance does not have it.
      expect(await replica.app.topups.getTopup(customer, topup.id)).toMatchObject({ status: 'pending', credited_eur_cents: 0 });
      // A redelivery meanwhile is a duplicate: the record is already in the inbox.
      expect(await replica.app.topups.handlePostback('sandbox', Buffer.from(body), { 'x-signature': stack.sign(body) })).toMatchObject({
        outcome: 'duplicate',
      });
      // Back: credited by the next retry, at most a sweep interval later.
      const backAtMs = performance.now();
      walletDown = false;
      await eventually(async () => expect(await stack.ledgerEntries(customer)).toBe(1), 10_000, 20);
      expect(performance.now() - backAtMs).toBeLessThan(inboxSweepIntervalMs + 1_500);
      await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
      expect(await replica.app.topups.getTopup(customer, topup.id)).toMatchObject({ status: 'paid', credited_eur_cents: 1800 });
      expect(await handle(body)).toMatchObject({ outcome: 'duplicate' });
      expect(await stack.ledgerEntries(customer)).toBe(1);
    } finally {
      await replica.close();
      await stack.payments.topups.crediting.start();
    }
  });
});

describe('customer events', () => {
  it('announces topup.expired once for a quote that ended unpaid, on the stream the notifier reads', async () => {
    const nats = await connectNats(inject('natsUrl'), 'payments-events', createLogger('payments-events', { level: 'silent' }));
    const channel = customerEventChannel(stack.prefix);
    const manager = await nats.jetstreamManager();
    await manager.streams.add({ name: channel.stream, subjects: [`${channel.subjectRoot}.>`], max_age: nanos(3_600_000) });
    const replica = await cachingReplica({ pendingFreshMs: 0, nats });
    try {
      stack.clock.advanceMs(31 * 60_000);
      while ((await replica.app.topups.expireDue(500)).checked > 0);
      const customer = customerId();
      const topup = await replica.app.topups.createTopup({
        customerId: customer,
        amountEurCents: 1500,
        assetCode: 'USDT',
        blockchainCode: 'TRON',
      });
      stack.clock.advanceMs(31 * 60_000);
      while ((await replica.app.topups.expireDue(500)).checked > 0);
      // A second sweep finds nothing new to say.
      await replica.app.topups.expireDue(500);
      const events = await eventually(async () => {
        const consumer = await nats.jetstream().consumers.get(channel.stream);
        const seen: CustomerEvent[] = [];
        for await (const message of await consumer.fetch({ max_messages: 500, expires: 1_000 })) {
          const event = JSON.parse(new TextDecoder().decode(message.data)) as CustomerEvent;
          if (event.customer_id === customer) seen.push(event);
        }
        return seen.length > 0 && seen;
      }, 10_000);
      expect(events).toEqual([
        expect.objectContaining({
          id: customerEventId(developmentEventIdSecret, 'topup.expired', `expired:${topup.id}`),
          type: 'topup.expired',
          data: { topup_id: topup.id, amount_eur_cents: 1500 },
        }),
      ]);
    } finally {
      await replica.close();
      await manager.streams.delete(channel.stream).catch(() => undefined);
      await nats.close();
    }
  });
});

describe('expiry sweep', () => {
  it('fails due top-ups in bounded batches and retries a cancellation the provider refused', async () => {
    // Both cancellations of the first pass fail, and so does the first retry within that pass.
    let cancelFailures = 3;
    const replica = await secondReplica({
      provider: (real) => ({
        ...real,
        cancelInvoice: async (invoiceId: string) => {
          if (cancelFailures-- > 0) throw new AppError('unavailable', 'provider down (injected)');
          return real.cancelInvoice(invoiceId);
        },
      }),
    });
    try {
      // Earlier tests' top-ups are due too: let this replica's sweep pass them before creating this test's.
      stack.clock.advanceMs(31 * 60_000);
      while ((await replica.app.topups.expireDue(500)).checked > 0);
      cancelFailures = 3;
      const customer = customerId();
      const created: Array<{ id: number }> = [];
      for (let index = 0; index < 3; index++)
        created.push(
          await replica.app.topups.createTopup({ customerId: customer, amountEurCents: 1000, assetCode: 'USDT', blockchainCode: 'TRON' }),
        );
      stack.clock.advanceMs(31 * 60_000);
      const invoiceStatus = async (topupId: number) => {
        const topup = await store().topups.findOne({ _id: String(topupId) });
        return (await stack.sandboxRequest('GET', `/v1/invoices/${topup!.invoice_id}`)).body.status as string;
      };
      const cancelled = async () =>
        (await Promise.all(created.map((topup) => invoiceStatus(topup.id)))).filter((status) => status === 'cancelled').length;
      expect(await replica.app.topups.expireDue(2)).toMatchObject({ checked: 2, expired: 2 });
      expect(await cancelled()).toBe(1);
      expect(await replica.app.topups.expireDue(2)).toMatchObject({ checked: 1, expired: 1 });
      expect(await cancelled()).toBe(3);
      expect(await replica.app.topups.expireDue(2)).toMatchObject({ checked: 0, expired: 0 });
      for (const topup of created) expect((await replica.app.topups.getTopup(customer, topup.id)).status).toBe('failed');
      expect(await store().cancelledInvoices.countDocuments({ _id: { $in: created.map((topup) => String(topup.id)) } })).toBe(3);
    } finally {
      await replica.close();
    }
  });
});

/** A second payments instance on the same store (a replica), optionally with a failing wallet or provider. */
/** A second payments replica on the stack's store and NATS (not started). */
function secondReplica(overrides: Omit<ReplicaOptions, 'onCommand'>): Promise<Replica> {
  return startReplica(stack, overrides);
}

/** A payments replica with a store client of its own (command monitoring) and, optionally, NATS for the broadcast. */
async function cachingReplica(options: {
  pendingFreshMs: number;
  nats?: NatsConnection;
}): Promise<{ app: PaymentsApp; finds: string[]; close(): Promise<void> }> {
  const finds: string[] = [];
  const replica = await startReplica(stack, {
    environment: { PAYMENTS_PENDING_FRESH_MS: String(options.pendingFreshMs) },
    onCommand: (command) => {
      if (command.name === 'find') finds.push(command.collection);
    },
    ...(options.nats ? { nats: options.nats } : {}),
    // Without a connection of its own it hears no other replica: only the freshness window brings their changes.
    announceChanges: options.nats !== undefined,
  });
  return { ...replica, finds };
}

describe('pending top-ups (GET /v1/wallet) from the read cache', () => {
  const create = (app: PaymentsApp, customer: string, amountEurCents = 2000) =>
    app.topups.createTopup({ customerId: customer, amountEurCents, assetCode: 'USDT', blockchainCode: 'TRON' });
  const listed = async (app: PaymentsApp, customer: string) =>
    (await app.topups.listPendingTopups(customer)).map((topup) => [topup.id, topup.status, topup.credited_eur_cents]);

  it("shows this replica's changes at once and reads nothing from the store while fresh", async () => {
    const replica = await cachingReplica({ pendingFreshMs: 60_000 });
    // This replica credits what it records (another replica's credit reaches its cache by broadcast, off here).
    await stack.payments.topups.crediting.stop();
    await replica.app.topups.crediting.start();
    try {
      const customer = customerId();
      expect(await listed(replica.app, customer)).toEqual([]);
      const topup = await create(replica.app, customer);
      expect(await listed(replica.app, customer)).toEqual([[topup.id, 'pending', 0]]);
      const half = (BigInt(topup.deposit_amount) / 2n).toString();
      const body = postbackBody(topup, await payThroughSandbox(topup, half), half);
      await replica.app.topups.handlePostback('sandbox', Buffer.from(body), {
        'x-signature': stack.sign(body),
        'content-type': 'application/json',
      });
      await eventually(async () => expect(await listed(replica.app, customer)).toEqual([[topup.id, 'partial', expect.any(Number)]]));
      const partial = await listed(replica.app, customer);
      expect(partial[0]![2]).toBeGreaterThan(0);
      replica.finds.length = 0;
      for (let index = 0; index < 20; index++) expect(await listed(replica.app, customer)).toEqual(partial);
      expect(replica.finds).toEqual([]);
      const rest = (BigInt(topup.deposit_amount) - BigInt(half)).toString();
      const restBody = postbackBody(topup, await payThroughSandbox(topup, rest), rest);
      await replica.app.topups.handlePostback('sandbox', Buffer.from(restBody), {
        'x-signature': stack.sign(restBody),
        'content-type': 'application/json',
      });
      await eventually(async () => expect(await listed(replica.app, customer)).toEqual([]));
    } finally {
      await replica.close();
      await stack.payments.topups.crediting.start();
    }
  });

  it("shows another replica's new top-up at once by broadcast, and within the freshness window without it", async () => {
    const logger = createLogger('test', { level: 'silent' });
    const natsA = await connectNats(inject('natsUrl'), 'payments-cache-a', logger);
    const natsB = await connectNats(inject('natsUrl'), 'payments-cache-b', logger);
    // A minute-long window: only the broadcast can make A see B's top-up during this test.
    const a = await cachingReplica({ pendingFreshMs: 60_000, nats: natsA });
    const b = await cachingReplica({ pendingFreshMs: 60_000, nats: natsB });
    const quietA = await cachingReplica({ pendingFreshMs: 300 });
    const quietB = await cachingReplica({ pendingFreshMs: 300 });
    try {
      await natsA.flush();
      const customer = customerId();
      expect(await listed(a.app, customer)).toEqual([]);
      const created = await create(b.app, customer);
      await eventually(async () => expect(await listed(a.app, customer)).toEqual([[created.id, 'pending', 0]]), 5_000, 10);

      const other = customerId();
      expect(await listed(quietA.app, other)).toEqual([]);
      const createdAtMs = performance.now();
      const quiet = await create(quietB.app, other);
      await eventually(async () => expect(await listed(quietA.app, other)).toEqual([[quiet.id, 'pending', 0]]), 5_000, 20);
      expect(performance.now() - createdAtMs).toBeLessThan(300 + 1_000);
    } finally {
      for (const replica of [a, b, quietA, quietB]) await replica.close();
      await natsA.close();
      await natsB.close();
    }
  });
});
