import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually, listenBacklogOf } from '@mtx/shared/testing';
import { startWalletStack, type WalletStack } from '../../../test/e2e/wallet-stack';
import { loadPaymentsConfig } from '../src/config';

/** Payments' own hook listener (HOOKS_PORT), where the ingress sends a provider's postbacks in production. */
let stack: WalletStack;

beforeAll(async () => {
  stack = await startWalletStack({ mongodbUrl: inject('mongodbUrl'), natsUrl: inject('natsUrl'), billing: 'stub' });
});

afterAll(async () => stack?.close());

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

async function paidTopup(amountEurCents: number) {
  const customer = await stack.newCustomer();
  const created = await stack.request('POST', '/v1/wallet/topup', {
    key: customer.full_key,
    body: { amount_eur_cents: amountEurCents, asset_code: 'USDT', blockchain_code: 'TRON' },
  });
  expect(created.status).toBe(201);
  const payment = (
    await stack.sandboxRequest('POST', '/sandbox/deposits', {
      address: created.body.deposit_address,
      asset_code: 'USDT',
      blockchain_code: 'TRON',
      amount: created.body.deposit_amount,
      delivery: 'never',
    })
  ).body as { transaction_id: string; invoice_id: string; received_at: string };
  return { customer, topup: created.body as { id: number; deposit_amount: string }, payment };
}

const hook = (body: string, headers: Record<string, string>, provider = 'sandbox') =>
  fetch(`${stack.paymentsHooksUrl}/v1/hooks/payments/${provider}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });

describe("payments' hook listener", () => {
  it('records a signed postback from its raw bytes whatever their formatting or content type, and credits it once', async () => {
    const { customer, topup, payment } = await paidTopup(2100);
    // Pretty-printed with odd spacing: re-serialising the JSON would break the signature.
    const body = `{\n  "type" : "transaction",\n  "timestamp": "${stack.clock.now().toISOString()}",\n  "invoice_id": "${payment.invoice_id}",\n  "asset_code": "USDT", "blockchain_code": "TRON",\n  "transaction": {"id": "${payment.transaction_id}", "amount": "${topup.deposit_amount}", "status": "confirmed", "received_at": "${payment.received_at}"}\n}\n`;
    const first = await hook(body, { 'content-type': 'text/plain', 'x-signature': stack.sign(body) });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, outcome: 'recorded' });
    const again = await hook(body, { 'content-type': 'application/json', 'x-signature': stack.sign(body) });
    expect(await again.json()).toEqual({ received: true, outcome: 'duplicate' });
    await eventually(async () =>
      expect((await stack.request('GET', `/v1/wallet/topup/${topup.id}`, { key: customer.read_key })).body).toMatchObject({
        status: 'paid',
        credited_eur_cents: 2100,
      }),
    );
    expect(await stack.ledgerEntries(customer.customer_id)).toBe(1);
  });

  it('refuses a bad signature, an oversized body, unknown providers and malformed names, recording nothing', async () => {
    const { customer, topup, payment } = await paidTopup(1500);
    const body = JSON.stringify({
      type: 'transaction',
      timestamp: stack.clock.now().toISOString(),
      invoice_id: payment.invoice_id,
      order_id: String(topup.id),
      asset_code: 'USDT',
      blockchain_code: 'TRON',
      transaction: { id: payment.transaction_id, amount: topup.deposit_amount, status: 'confirmed', received_at: payment.received_at },
    });
    const forged = `sha256=${crypto.createHmac('sha256', 'not-the-shared-secret').update(body).digest('hex')}`;
    const answers = [
      await hook(body, { 'content-type': 'application/json', 'x-signature': forged }),
      await hook(body, { 'content-type': 'application/json' }),
      await hook(JSON.stringify({ padding: 'x'.repeat(70 * 1024) }), { 'content-type': 'application/json', 'x-signature': 'sha256=00' }),
      await hook(body, { 'content-type': 'application/json', 'x-signature': stack.sign(body) }, 'nowpayments'),
      await hook(body, { 'content-type': 'application/json', 'x-signature': stack.sign(body) }, 'Not A Name'),
    ];
    const seen = await Promise.all(answers.map(async (answer) => `${answer.status} ${((await answer.json()) as any).error?.code}`));
    expect(seen).toEqual(['401 unauthenticated', '401 unauthenticated', '413 payload_too_large', '404 not_found', '400 invalid_request']);
    const recordId = `sandbox:${payment.transaction_id}`;
    expect(await stack.inboxRecord(recordId)).toBeNull();
    expect(await stack.ledgerEntries(customer.customer_id)).toBe(0);
    expect((await fetch(`${stack.paymentsHooksUrl}/v1/hooks/other`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(await (await fetch(`${stack.paymentsHooksUrl}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  it("holds a burst of connections while its event loop is busy, where Node's default backlog drops them", async () => {
    const port = Number(new URL(stack.paymentsHooksUrl).port);
    const { backlog, hostMax } = await listenBacklogOf(port);
    expect(backlog).toBe(Math.min(loadPaymentsConfig({}).HOOKS_LISTEN_BACKLOG, hostMax));
    // More senders than Node's default (511) connect at once while this process (the listener's) is blocked: the
    // kernel completes every handshake and queues it. A dropped one would retry its SYN after a second.
    const senders = Math.min(1_200, backlog);
    expect(senders).toBeGreaterThan(511);
    const startAtMs = Date.now() + 1_500;
    const burst = spawn(
      process.execPath,
      [
        '-e',
        `const net = require('node:net');
        const [port, senders, startAtMs] = process.argv.slice(1).map(Number);
        const sockets = [];
        const connectMs = [];
        setTimeout(() => {
          for (let index = 0; index < senders; index++) {
            const started = performance.now();
            const socket = net.connect(port, '127.0.0.1');
            socket.on('connect', () => {
              connectMs.push(performance.now() - started);
              if (connectMs.length === senders) finish();
            });
            socket.on('error', () => undefined);
            sockets.push(socket);
          }
          setTimeout(finish, 5_000);
        }, startAtMs - Date.now());
        function finish() {
          process.stdout.write(JSON.stringify(connectMs));
          for (const socket of sockets) socket.destroy();
          process.exit(0);
        }`,
        String(port),
        String(senders),
        String(startAtMs),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    burst.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise((resolve) => burst.on('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAtMs - Date.now() - 100)));
    // The listener's event loop does nothing for 1.5 s, from just before the burst.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500);
    await exited;
    const connectMs = JSON.parse(output) as number[];
    expect(connectMs).toHaveLength(senders);
    // Handshakes on loopback take microseconds; a dropped SYN is retried one second after it was sent.
    expect(connectMs.filter((milliseconds) => milliseconds >= 990)).toEqual([]);
    expect(await (await fetch(`${stack.paymentsHooksUrl}/healthz`)).json()).toEqual({ status: 'ok' });
  });
});
