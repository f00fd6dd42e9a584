import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { databaseName } from '@mtx/shared/mongo';
import type { WalletPort } from '../src/domain/ports';
import { serverEntryId } from '../src/domain/renewals';
import { customerIdFor, startBillingHarness, type BillingHarness } from './helpers';

/**
 * Purchases whose debit outcome billing never learned: the real wallet applies (or never receives) the
 * debit and the answer is lost on the way back. A retry of the same call, or the scheduler's recovery pass,
 * settles it without ever charging twice and without keeping a seat nobody paid for.
 */
let harness: BillingHarness;
let fault: 'none' | 'lose_reply' | 'down' = 'none';
/** Runs once, after the wallet answered the recovery pass's lookup and before billing acts on that answer. */
let afterLookup: (() => Promise<void>) | undefined;
let realWallet: WalletPort | undefined;

beforeAll(async () => {
  harness = await startBillingHarness({
    start: '2028-05-01T10:00:00Z',
    env: { PENDING_PURCHASE_RECOVERY_MS: '300000' },
    execution: { setAccountBillingStatus: async () => undefined },
    wrapWallet: (wallet) => ({
      ...(realWallet = wallet),
      async debit(request) {
        const mode = fault;
        fault = 'none';
        if (mode === 'down') throw new AppError('unavailable', 'a backing service did not answer in time; retry');
        const result = await wallet.debit(request);
        if (mode === 'lose_reply') throw new AppError('unavailable', 'a backing service did not answer in time; retry');
        return result;
      },
      async entryApplied(customerId, entryId) {
        const applied = await wallet.entryApplied(customerId, entryId);
        const hook = afterLookup;
        afterLookup = undefined;
        await hook?.();
        return applied;
      },
    }),
  });
});
afterAll(async () => harness?.close());

const call = <T = any>(method: string, request: unknown) => harness.billing.client.call<T>(method, request);
const assign = (customer: string, account: string) =>
  call('AssignSeat', { customer_id: customer, account_id: account, label: account, bonus: false });

describe('a purchase whose answer was lost', () => {
  it("is completed by the caller's retry without a second charge", async () => {
    const customer = customerIdFor('retry');
    await harness.credit(customer, 3000);
    harness.clock.set('2028-05-01T10:00:00Z');
    fault = 'lose_reply';
    await expect(assign(customer, 'acc_r')).rejects.toMatchObject({ code: 'unavailable' });
    expect(await harness.balance(customer)).toBe(1800);
    expect((await call('GetSubscription', { customer_id: customer })).seats.total).toBe(0);
    const seat = await assign(customer, 'acc_r');
    expect(seat).toMatchObject({ account_id: 'acc_r', status: 'active', paid_until: '2028-06-01T10:00:00.000Z' });
    expect(await harness.balance(customer)).toBe(1800);
    expect((await call('GetSubscription', { customer_id: customer })).seats).toEqual({ total: 1, used: 1, bonus: 0 });
  });

  it('is kept as a paid empty slot by the recovery pass when the wallet took the money', async () => {
    const customer = customerIdFor('kept');
    await harness.credit(customer, 3000);
    harness.clock.set('2028-05-02T10:00:00Z');
    fault = 'lose_reply';
    await expect(assign(customer, 'acc_k')).rejects.toMatchObject({ code: 'unavailable' });
    harness.clock.set('2028-05-02T10:05:00Z');
    expect((await call('RunSchedulerTick', { respect_lease: false })).recovered).toBeGreaterThanOrEqual(1);
    const current = await call('GetSubscription', { customer_id: customer });
    expect(current.seats).toEqual({ total: 1, used: 0, bonus: 0 });
    expect(current.seat_details[0]).toMatchObject({ status: 'active', paid_until: '2028-06-02T10:00:00.000Z' });
    expect(await harness.balance(customer)).toBe(1800);
    // The account connects again and takes the slot it paid for.
    expect((await assign(customer, 'acc_k')).id).toBe(current.seat_details[0].id);
    expect(await harness.balance(customer)).toBe(1800);
  });

  it('is dropped by the recovery pass, nothing charged, when the wallet never got it', async () => {
    const customer = customerIdFor('dropped');
    await harness.credit(customer, 3000);
    harness.clock.set('2028-05-03T10:00:00Z');
    fault = 'down';
    await expect(assign(customer, 'acc_d')).rejects.toMatchObject({ code: 'unavailable' });
    harness.clock.set('2028-05-03T10:05:00Z');
    expect((await call('RunSchedulerTick', { respect_lease: false })).recovered).toBeGreaterThanOrEqual(1);
    expect((await call('GetSubscription', { customer_id: customer })).seats.total).toBe(0);
    expect(await harness.balance(customer)).toBe(3000);
    const audit = await harness.wallet.client.call<{ ok: boolean }>('Audit', {});
    expect(audit.ok).toBe(true);
  });
});

describe('a keyed server purchase whose answer was lost', () => {
  it('is finished by a retry with the same server id, after midnight, with one charge', async () => {
    const customer = customerIdFor('server-retry');
    await harness.credit(customer, 5000);
    harness.clock.set('2028-05-03T23:59:30Z');
    const serverId = 'srv_keyedPurchase0001';
    fault = 'lose_reply';
    await expect(
      call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'London', server_id: serverId }),
    ).rejects.toMatchObject({ code: 'unavailable' });
    const afterFirst = await harness.balance(customer);
    expect(afterFirst).toBeLessThan(5000);
    // The client retries a minute later, on the next day: the wallet entry must still be the first one's.
    harness.clock.set('2028-05-04T00:00:30Z');
    const server = await call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'London', server_id: serverId });
    expect(server).toMatchObject({ id: serverId, status: 'active' });
    expect(await harness.balance(customer)).toBe(afterFirst);
    const again = await call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'London', server_id: serverId });
    expect(again.id).toBe(serverId);
    expect(await harness.balance(customer)).toBe(afterFirst);
    const listed = await call('ListServers', { customer_id: customer });
    expect(listed.servers.filter((entry: { id: string }) => entry.id === serverId)).toHaveLength(1);
  });
});

describe('the recovery pass', () => {
  it('finds a charged server purchase however many ledger entries came after it', async () => {
    const customer = customerIdFor('busy-wallet');
    await harness.credit(customer, 5000);
    harness.clock.set('2028-05-05T10:00:00Z');
    fault = 'lose_reply';
    await expect(call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'Busy' })).rejects.toMatchObject({
      code: 'unavailable',
    });
    const afterCharge = await harness.balance(customer);
    expect(afterCharge).toBeLessThan(5000);
    // A busy customer's wallet: far more entries after the purchase than one page of the ledger holds.
    for (let index = 0; index < 250; index += 1) await harness.credit(customer, 1);
    harness.clock.set('2028-05-05T10:05:00Z');
    expect((await call('RunSchedulerTick', { respect_lease: false })).recovered).toBeGreaterThanOrEqual(1);
    const listed = (await call('ListServers', { customer_id: customer })).servers;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ label: 'Busy', status: 'active' });
    // The money taken is the server's, once: 250 cents credited, nothing refunded or taken again.
    expect(await harness.balance(customer)).toBe(afterCharge + 250);
    expect((await harness.wallet.client.call<{ ok: boolean }>('Audit', {})).ok).toBe(true);
  });

  it('lists a keyed server left pending without a pointer once its retry pays for it', async () => {
    const customer = customerIdFor('no-pointer');
    await harness.credit(customer, 5000);
    harness.clock.set('2028-05-06T10:00:00Z');
    const serverId = 'srv_pointerlessPending01';
    const now = harness.clock.now();
    // What a purchase cut short between its document and its pointer left behind (ordinal still -1).
    await harness.mongo
      .db(databaseName(harness.prefix, 'billing'))
      .collection('servers')
      .insertOne({
        _id: serverId as never,
        customer_id: customer,
        ordinal: -1,
        plan: 'vps-small',
        label: 'Cut short',
        price_eur_cents: 1500,
        status: 'pending',
        anchor_at: now,
        cycle: 1,
        paid_until: new Date('2028-06-06T10:00:00Z'),
        grace_ends_at: null,
        next_action_at: new Date(now.getTime() + 300_000),
        release_reason: null,
        released_at: null,
        created_at: now,
        updated_at: now,
      });
    const server = await call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'Cut short', server_id: serverId });
    expect(server).toMatchObject({ id: serverId, status: 'active' });
    expect(await harness.balance(customer)).toBe(5000 - 1500);
    const listed = (await call('ListServers', { customer_id: customer })).servers as Array<{ id: string }>;
    expect(listed.map((entry) => entry.id)).toEqual([serverId]);
    expect((await harness.wallet.client.call<{ ok: boolean }>('Audit', {})).ok).toBe(true);
  });

  it('does not drop a purchase that its retry paid for while the pass was deciding', async () => {
    const customer = customerIdFor('raced-retry');
    await harness.credit(customer, 5000);
    harness.clock.set('2028-05-07T10:00:00Z');
    const serverId = 'srv_racedRecovery00001';
    const create = () => call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'Raced', server_id: serverId });
    fault = 'down';
    await expect(create()).rejects.toMatchObject({ code: 'unavailable' });
    expect(await harness.balance(customer)).toBe(5000);
    // The pass learns that nothing was charged; before it acts, the client's retry on another replica charges the
    // purchase's entry and activates the server (what that replica's CreateServer does; this one's would wait for
    // the pass, which holds the customer's queue here).
    harness.clock.set('2028-05-07T10:05:00Z');
    afterLookup = async () => {
      await realWallet!.debit({
        customer_id: customer,
        entry_id: serverEntryId(serverId, new Date('2028-05-07T10:00:00Z')),
        amount_eur_cents: 1500,
        reason: 'server',
        reference: serverId,
      });
      await harness.mongo
        .db(databaseName(harness.prefix, 'billing'))
        .collection<{ _id: string }>('servers')
        .updateOne({ _id: serverId }, { $set: { status: 'active' } });
    };
    await call('RunSchedulerTick', { respect_lease: false });
    expect(afterLookup).toBeUndefined();
    const listed = (await call('ListServers', { customer_id: customer })).servers as Array<{ id: string; status: string }>;
    expect(listed).toEqual([expect.objectContaining({ id: serverId, status: 'active' })]);
    expect(await harness.balance(customer)).toBe(5000 - 1500);
    expect((await harness.wallet.client.call<{ ok: boolean }>('Audit', {})).ok).toBe(true);
  });
});
