import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { eventually } from '@mtx/shared/testing';
import { executionPortFromClient } from '../../services/billing/src/clients/execution';
import type { ExecutionPort } from '../../services/billing/src/domain/ports';
import { customerIdFor, startBillingHarness, type BillingHarness } from '../../services/billing/test/helpers';
import { plain, startExecutionStack, type ExecutionStack } from '../../services/execution/test/stack';

/**
 * Billing and the real execution service (with broker-sim and both connectors, on real NATS and the real
 * store) together: connecting an account buys its seat; an unpaid renewal makes it past_due, then, after the
 * grace, suspended, and execution rejects its legs without sending them; execution being unreachable at that
 * moment only delays the news; a top-up brings the seat and the account back.
 */
let backends: BillingHarness;
let stack: ExecutionStack;
const clients: UnaryClient<any>[] = [];
let executionPort: ExecutionPort | undefined;
const customer = customerIdFor('billexec');
let loginSequence = 71_000;

// Billing reaches execution through whatever port is plugged in at the moment, so the test can take it away.
const switchablePort: ExecutionPort = {
  setAccountBillingStatus: (customerId, accountId, status) =>
    executionPort
      ? executionPort.setAccountBillingStatus(customerId, accountId, status)
      : Promise.reject(new AppError('unavailable', 'execution is not reachable')),
};

function portTo(address: string): ExecutionPort {
  const client = createUnaryClient<any>('execution/v1/execution.proto', 'mtx.execution.v1.ExecutionService', address, 2_000);
  clients.push(client);
  return executionPortFromClient(client, 2_000);
}

beforeAll(async () => {
  backends = await startBillingHarness({ execution: switchablePort, start: '2027-06-01T10:00:00Z', env: { FAILURE_BACKOFF_MS: '60000' } });
  stack = await startExecutionStack({
    label: 'billexec',
    executionEnv: { SEATS_REQUIRED: 'true', BILLING_GRPC_URL: backends.billing.address },
  });
  executionPort = portTo(stack.executionAddress);
  await stack.control('/control/prices', 'POST', { frozen_all: true });
  await stack.control('/control/prices', 'POST', { symbol: 'EURUSD', bid: 1.1, frozen: true });
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await stack?.close();
  await backends?.close();
});

const tick = () => backends.billing.client.call('RunSchedulerTick', { respect_lease: true });
const subscription = () => backends.billing.client.call('GetSubscription', { customer_id: customer });
const accountStatus = async (accountId: string) =>
  (await stack.client.call('GetAccount', { customer_id: customer, account_id: accountId })).status as string;
const received = async () => (await stack.control('/control/stats')).body.trade_requests_received as number;
const buy = (accountId: string) =>
  stack.client
    .call('PlaceOrders', {
      customer_id: customer,
      orders: [{ account_id: accountId, fields: { symbol: 'EURUSD', operation: 'buy', volume: 0.1 } }],
    })
    .then(plain);
const connect = () => {
  const login = String(++loginSequence);
  return stack.client.call('CreateAccount', {
    customer_id: customer,
    platform: 'mt5',
    server: 'AlphaFX-Live',
    login,
    password: `pw-${login}`,
    label: `Alpha ${login}`,
  });
};

describe('seats of connected accounts, with the real execution service', () => {
  let accountId: string;

  it('buys a seat when an account is connected, and refuses a second one the balance cannot pay (insufficient_balance)', async () => {
    await backends.credit(customer, 1200);
    const account = await connect();
    accountId = account.id;
    expect(account.status).toBe('active');
    const current = await subscription();
    expect(current.seats).toEqual({ total: 1, used: 1, bonus: 0 });
    expect(current.seat_details[0]).toMatchObject({ account_id: accountId, status: 'active', paid_until: '2027-07-01T10:00:00.000Z' });
    expect(await backends.balance(customer)).toBe(0);

    await expect(connect()).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect((await stack.client.call('ListAccounts', { customer_id: customer })).accounts).toHaveLength(1);
    expect((await subscription()).seats.total).toBe(1);
  });

  it('marks the account past_due when the renewal cannot be paid; its legs still go through during the grace', async () => {
    backends.clock.set('2027-07-01T10:00:00Z');
    expect((await tick()).past_due).toBe(1);
    expect(await accountStatus(accountId)).toBe('past_due');
    const response = await buy(accountId);
    expect(response.results[0].status).toBe('filled');
  });

  it('suspends it when the grace passes; execution, unreachable at that moment, is told on the retry and rejects its legs unsent', async () => {
    executionPort = portTo('127.0.0.1:1');
    backends.clock.set('2027-07-04T10:00:00Z');
    expect((await tick()).suspended).toBe(1);
    expect((await subscription()).seat_details[0].status).toBe('suspended');
    expect(await accountStatus(accountId)).toBe('past_due');

    executionPort = portTo(stack.executionAddress);
    backends.clock.set('2027-07-04T10:01:00Z');
    await tick();
    expect(await accountStatus(accountId)).toBe('suspended');

    const before = await received();
    const response = await buy(accountId);
    expect(response.results[0]).toMatchObject({ status: 'rejected', order: 0 });
    expect(response.results[0].message).toContain('suspended');
    expect(await received()).toBe(before);
  });

  it('re-activates the seat and the account as soon as a top-up pays the renewal', async () => {
    backends.clock.set('2027-07-05T08:00:00Z');
    await backends.credit(customer, 1500);
    await eventually(async () => (await accountStatus(accountId)) === 'active', 10_000);
    const current = await subscription();
    expect(current.status).toBe('active');
    expect(current.seat_details[0]).toMatchObject({ status: 'active', paid_until: '2027-08-01T10:00:00.000Z' });
    expect(await backends.balance(customer)).toBe(300);
    expect((await buy(accountId)).results[0].status).toBe('filled');
  });

  it('leaves the seat paid and empty when the account is disconnected, and releases it unbilled at its date', async () => {
    await stack.client.call('DeleteAccount', { customer_id: customer, account_id: accountId });
    let current = await subscription();
    expect(current.seats).toEqual({ total: 1, used: 0, bonus: 0 });
    expect(current.seat_details[0].account_id ?? null).toBeNull();
    backends.clock.set('2027-08-01T10:00:00Z');
    expect((await tick()).released).toBe(1);
    current = await subscription();
    expect(current.seats.total).toBe(0);
    expect(await backends.balance(customer)).toBe(300);
  });
});
