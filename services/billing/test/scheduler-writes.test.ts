import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoServerError, type AnyBulkWriteOperation, type BulkWriteOptions, type Collection } from 'mongodb';
import { createLogger } from '@mtx/shared/logger';
import { databaseName } from '@mtx/shared/mongo';
import { announceRevisions, renewalPolicy } from '../src/app';
import { loadBillingConfig } from '../src/config';
import { KeyedSerialQueue } from '../src/domain/keyed-queue';
import { claimKey, type SeatDocument } from '../src/domain/model';
import { walletPortFromClient } from '../src/clients/wallet';
import { RenewalEngine } from '../src/app/renewal-engine';
import { Scheduler, type SchedulerReport } from '../src/app/scheduler';
import { BillingStore, billingCollections, type BillingCollections } from '../src/store/billing-store';
import { customerIdFor, startBillingHarness, type BillingHarness } from './helpers';

/**
 * The scheduler writes a customer's plain renewals together after the debits, and trusts a batch's occupancy
 * only after looking up each seat's next claim. These run it on the real store and the real wallet, with a
 * store failure injected into one grouped write.
 */
let harness: BillingHarness;
let collections: BillingCollections;
/** The seat whose grouped write fails, the way FerretDB fails a command: the statements before it applied, none after. */
let failingSeatId: string | null = null;
/** Whether a seat's single update that would make it past_due fails (the store fails in the middle of a customer). */
let failPastDueWrite = false;
let scheduler: Scheduler;

function failingOn(collection: Collection<SeatDocument>): Collection<SeatDocument> {
  return new Proxy(collection, {
    get(target, property, receiver) {
      if (property === 'updateOne') {
        return async (...args: Parameters<Collection<SeatDocument>['updateOne']>) => {
          const update = args[1] as { $set?: Partial<SeatDocument> };
          if (failPastDueWrite && update.$set?.status === 'past_due')
            throw new MongoServerError({
              message: 'injected: the store failed this update',
              errmsg: 'injected: the store failed this update',
              code: 1,
            });
          return target.updateOne(...args);
        };
      }
      if (property !== 'bulkWrite') return Reflect.get(target, property, receiver);
      return async (operations: Array<AnyBulkWriteOperation<SeatDocument>>, options?: BulkWriteOptions) => {
        const position = operations.findIndex((operation) => 'updateOne' in operation && operation.updateOne.filter._id === failingSeatId);
        if (position < 0) return target.bulkWrite(operations, options);
        if (position > 0) await target.bulkWrite(operations.slice(0, position), options);
        throw new MongoServerError({
          message: 'injected: the store failed this update',
          errmsg: 'injected: the store failed this update',
          code: 1,
        });
      };
    },
  });
}

beforeAll(async () => {
  harness = await startBillingHarness({ start: '2030-06-05T10:00:00Z', execution: { setAccountBillingStatus: async () => undefined } });
  const config = loadBillingConfig({ MONGODB_URL: 'mongodb://unused', MONGODB_DATABASE_PREFIX: harness.prefix });
  collections = billingCollections(harness.mongo.db(databaseName(harness.prefix, 'billing')));
  const faulty: BillingCollections = { ...collections, seats: failingOn(collections.seats) };
  // A second replica: it announces its revisions as every replica does.
  const store = new BillingStore(faulty, {
    cacheCustomers: 0,
    schedulerWritesInFlight: 1,
    onRevisionChanged: announceRevisions(harness.nats),
  });
  const logger = createLogger('billing-test', { level: 'silent' });
  const renewals = new RenewalEngine(
    store,
    walletPortFromClient(harness.wallet.client, 5_000),
    { setAccountBillingStatus: async () => undefined },
    harness.clock,
    renewalPolicy(config),
    logger,
  );
  scheduler = new Scheduler(store, renewals, new KeyedSerialQueue(100), harness.clock, logger, {
    instanceId: 'scheduler-writes-test',
    leaseMs: 60_000,
    batchSize: config.SCHEDULER_BATCH_SIZE,
    concurrency: 4,
  });
}, 60_000);
afterAll(async () => harness?.close());

const call = <T = any>(method: string, request: unknown) => harness.billing.client.call<T>(method, request);
const assign = (customer: string, account: string) =>
  call<{ id: string; paid_until: string }>('AssignSeat', { customer_id: customer, account_id: account, label: account, bonus: false });

async function seatDebitIds(customer: string): Promise<string[]> {
  const response = await harness.wallet.client.call<{ entries: Array<{ entry_id: string; kind: string; reason: string }> }>('ListEntries', {
    customer_id: customer,
    limit: 500,
  });
  return response.entries.filter((entry) => entry.kind === 'debit' && entry.reason === 'seat').map((entry) => entry.entry_id);
}

describe('grouped seat renewals', () => {
  it("writes the others when one seat's grouped write fails, and the next tick finishes that seat through a replay, never a second charge", async () => {
    const customer = customerIdFor('grouped');
    await harness.credit(customer, 6 * 1200 * 2);
    harness.clock.set('2030-06-05T10:00:00Z');
    const seats: Array<{ id: string; paid_until: string }> = [];
    for (let index = 0; index < 6; index += 1) seats.push(await assign(customer, `acc_${index}`));
    expect(seats.map((seat) => seat.paid_until)).toEqual(Array(6).fill('2030-07-05T10:00:00.000Z'));

    harness.clock.set('2030-07-05T10:00:00Z');
    failingSeatId = seats[2]!.id;
    const first: SchedulerReport = await scheduler.tick({ respectLease: false });
    failingSeatId = null;
    // The six fit one command; a failed command cannot say which of its writes landed, so none counts as done.
    expect(first.processed).toBe(6);
    expect(first.outcomes).toMatchObject({ charged: 0, deferred: 6 });
    const renewedEntries = seats.map((seat) => `seat:${seat.id}:2030-07-05`);
    expect((await seatDebitIds(customer)).filter((entryId) => entryId.endsWith(':2030-07-05')).sort()).toEqual([...renewedEntries].sort());
    const stored = await collections.seats.find({ _id: { $in: seats.map((seat) => seat.id) } }).toArray();
    const renewedByFirst = stored.filter((seat) => seat.paid_until.toISOString() === '2030-08-05T10:00:00.000Z').map((seat) => seat._id);
    // The failing seat is still due with its old dates; the writes the command made before it landed.
    expect(stored.find((seat) => seat._id === seats[2]!.id)).toMatchObject({
      status: 'active',
      paid_until: new Date('2030-07-05T10:00:00.000Z'),
      cycle: 1,
    });
    expect(renewedByFirst).not.toContain(seats[2]!.id);

    const second = await scheduler.tick({ respectLease: false });
    expect(second.outcomes).toMatchObject({ charged: 0, already_charged: 6 - renewedByFirst.length, deferred: 0 });
    const subscription = await call('GetSubscription', { customer_id: customer });
    expect(subscription.seat_details.map((seat: { status: string; paid_until: string }) => `${seat.status} ${seat.paid_until}`)).toEqual(
      Array(6).fill('active 2030-08-05T10:00:00.000Z'),
    );
    const debits = await seatDebitIds(customer);
    expect(debits).toHaveLength(12);
    expect(new Set(debits).size).toBe(12);
    expect(await harness.balance(customer)).toBe(0);
    const audit = await harness.wallet.client.call<{ ok: boolean; breaches: string[] }>('Audit', {});
    expect(audit.breaches ?? []).toEqual([]);
    expect(audit.ok).toBe(true);

    // Nothing left due: a further tick at the same instant does nothing.
    expect((await scheduler.tick({ respectLease: false })).processed).toBe(0);
  });

  it('writes the renewals already charged and tells readers when the store fails half-way through a customer', async () => {
    const customer = customerIdFor('halfway');
    await harness.credit(customer, 3 * 1200 + 2 * 1200);
    harness.clock.set('2030-08-20T10:00:00Z');
    const seats: Array<{ id: string }> = [];
    for (let index = 0; index < 3; index += 1) seats.push(await assign(customer, `acc_${index}`));
    // The replica caches the customer's view now; only a new revision makes it read again.
    expect((await call('GetSubscription', { customer_id: customer })).seat_details).toHaveLength(3);

    harness.clock.set('2030-09-20T10:00:00Z');
    failPastDueWrite = true;
    // The balance pays two renewals; the third goes past_due, and that write fails.
    const first = await scheduler.tick({ respectLease: false });
    failPastDueWrite = false;
    expect(first.outcomes).toMatchObject({ charged: 0, deferred: 3 });
    const renewedDates = (await call('GetSubscription', { customer_id: customer })).seat_details
      .map((seat: { paid_until: string }) => seat.paid_until)
      .sort();
    expect(renewedDates).toEqual(['2030-09-20T10:00:00.000Z', '2030-10-20T10:00:00.000Z', '2030-10-20T10:00:00.000Z']);
    expect((await seatDebitIds(customer)).filter((entryId) => entryId.endsWith(':2030-09-20'))).toHaveLength(2);

    const second = await scheduler.tick({ respectLease: false });
    expect(second.outcomes).toMatchObject({ charged: 0, already_charged: 0, past_due: 1 });
    const details = (await call('GetSubscription', { customer_id: customer })).seat_details
      .map((seat: { status: string; paid_until: string }) => `${seat.status} ${seat.paid_until}`)
      .sort();
    expect(details).toEqual(['active 2030-10-20T10:00:00.000Z', 'active 2030-10-20T10:00:00.000Z', 'past_due 2030-09-20T10:00:00.000Z']);
    expect(await seatDebitIds(customer)).toHaveLength(5);
    expect(await harness.balance(customer)).toBe(0);
  });

  it("does not trust a batch's occupancy when a newer claim is pending: a disconnect that died half-way is finished and the empty seat released unbilled", async () => {
    const customer = customerIdFor('pending');
    await harness.credit(customer, 4 * 1200);
    harness.clock.set('2030-09-10T10:00:00Z');
    const kept = await assign(customer, 'acc_kept');
    const left = await assign(customer, 'acc_left');
    // A disconnect whose writer died after winning its claim and before updating the occupancy document.
    const occupancy = (await collections.occupancy.findOne({ _id: left.id }))!;
    await collections.claims.insertOne({
      _id: claimKey(left.id, occupancy.generation + 1),
      seat_id: left.id,
      generation: occupancy.generation + 1,
      account_id: null,
      label: null,
      released: false,
      created_at: new Date(),
    });

    harness.clock.set('2030-10-10T10:00:00Z');
    const report = await scheduler.tick({ respectLease: false });
    expect(report.outcomes.charged).toBe(1);
    expect(report.outcomes.released).toBe(1);
    expect(await seatDebitIds(customer)).toEqual([
      `seat:${kept.id}:2030-10-10`,
      `seat:${left.id}:2030-09-10`,
      `seat:${kept.id}:2030-09-10`,
    ]);
    expect(await harness.balance(customer)).toBe(1200);
    const subscription = await call('GetSubscription', { customer_id: customer });
    expect(subscription.seat_details).toEqual([
      expect.objectContaining({ id: kept.id, account_id: 'acc_kept', paid_until: '2030-11-10T10:00:00.000Z' }),
    ]);
  });
});
