import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkGrpcHealth, createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { startServiceProcess, type ServiceProcess } from '@mtx/devstack/services';
import { testDatabasePrefix } from '@mtx/shared/testing';

/**
 * Billing and the wallet as the real processes `npm start` runs: billing boots, reports health, answers
 * for a customer with nothing, sells a seat from a real balance, and stops cleanly on SIGTERM.
 */
let wallet: ServiceProcess;
let billing: ServiceProcess;
let billingClient: UnaryClient<any>;
let walletClient: UnaryClient<any>;
const lines: string[] = [];

beforeAll(async () => {
  const env = {
    ...process.env,
    MONGODB_URL: inject('mongodbUrl'),
    NATS_URL: inject('natsUrl'),
    MONGODB_DATABASE_PREFIX: testDatabasePrefix('billproc'),
    LOG_LEVEL: 'info',
    SCHEDULER_INTERVAL_MS: '500',
  };
  const onLine = (_service: string, line: string) => lines.push(line);
  wallet = await startServiceProcess({ name: 'wallet', env, onLine });
  billing = await startServiceProcess({
    name: 'billing',
    env: { ...env, WALLET_GRPC_URL: wallet.address, EXECUTION_GRPC_URL: '127.0.0.1:1' },
    onLine,
  });
  billingClient = createUnaryClient<any>('billing/v1/billing.proto', 'mtx.billing.v1.BillingService', billing.address, 10_000);
  walletClient = createUnaryClient<any>('wallet/v1/wallet.proto', 'mtx.wallet.v1.WalletService', wallet.address, 10_000);
}, 120_000);

afterAll(async () => {
  billingClient?.close();
  walletClient?.close();
  await billing?.stop();
  await wallet?.stop();
});

describe('billing process', () => {
  it('serves the standard gRPC health check for the server and for BillingService', async () => {
    expect(await checkGrpcHealth(billing.address)).toBe(true);
    expect(await checkGrpcHealth(billing.address, 1_000, 'mtx.billing.v1.BillingService')).toBe(true);
  });

  it('answers GetUpcoming and GetSubscription for a customer with nothing', async () => {
    const customer = `cus_empty_${Date.now()}`;
    expect(await billingClient.call('GetUpcoming', { customer_id: customer })).toMatchObject({ items: [], total_eur_cents: 0 });
    const subscription = await billingClient.call('GetSubscription', { customer_id: customer });
    expect(subscription).toMatchObject({
      plan: 'none',
      status: 'inactive',
      paid_access: false,
      billing_provider: 'balance',
      cancel_at_period_end: false,
      seats: { total: 0, used: 0, bonus: 0 },
      seat_details: [],
    });
    expect(subscription.wallet).toMatchObject({ balance_eur_cents: 0, covers_next_charge: true });
    expect(subscription.wallet.next_charge_eur_cents ?? null).toBeNull();
  });

  it('rejects a malformed customer id with invalid_request', async () => {
    await expect(billingClient.call('GetSubscription', { customer_id: '' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'customer_id',
    });
  });

  it('sells a seat from the real balance and lists it', async () => {
    const customer = `cus_seat_${Date.now()}`;
    await walletClient.call('Credit', {
      customer_id: customer,
      entry_id: `topup:${customer}`,
      amount_eur_cents: 2000,
      reason: 'topup',
      reference: 'test',
    });
    const seat = await billingClient.call('AssignSeat', { customer_id: customer, account_id: 'acc_1', label: 'Main', bonus: false });
    expect(seat).toMatchObject({ status: 'active', account_id: 'acc_1', bonus: false });
    const subscription = await billingClient.call('GetSubscription', { customer_id: customer });
    expect(subscription).toMatchObject({
      plan: 'per_account',
      status: 'active',
      paid_access: true,
      seats: { total: 1, used: 1, bonus: 0 },
    });
    expect(subscription.wallet.balance_eur_cents).toBe(800);
    const entries = await walletClient.call('ListEntries', { customer_id: customer, limit: 10 });
    const seatEntries = entries.entries.filter((entry: { entry_id: string }) => entry.entry_id.startsWith(`seat:${seat.id}:`));
    expect(seatEntries).toHaveLength(1);
    expect(seatEntries[0]).toMatchObject({ kind: 'debit', reason: 'seat', reference: seat.id, amount_eur_cents: 1200 });
  });

  it('stops on SIGTERM with exit code 0', async () => {
    await billing.stop(20_000);
    expect(await billing.exited()).toBe(0);
    expect(lines.some((line) => line.includes('"service":"billing"') && line.includes('"msg":"stopped"'))).toBe(true);
  });
});
