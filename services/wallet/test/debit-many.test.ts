import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import { createLogger } from '@mtx/shared/logger';
import { databaseName } from '@mtx/shared/mongo';
import { OrderedRunBatcher } from '@mtx/shared/run-batcher';
import { createLedger, type CreditedEvent, type DebitManyItem, type DebitManyOutcome } from '../src/app/ledger';
import { createLedgerStore, type LedgerStore } from '../src/store/ledger-store';
import { LedgerCrash, crashingLedger, creditCall, debitCall, tickingClock, twoReplicasOnOneStore, type WalletReplica } from './helpers';

const suite = twoReplicasOnOneStore('walletmany');
let store: LedgerStore;

const newWallet = () => `cus_${crypto.randomBytes(6).toString('hex')}`;

beforeAll(() => {
  store = createLedgerStore(suite.mongo.db(databaseName(suite.prefix, 'wallet')));
});

const credit = creditCall;
const debit = debitCall;
const debitMany = (replica: WalletReplica, customerId: string, entries: Array<[entryId: string, amount: number]>) =>
  replica.client.call<DebitManyOutcome>('DebitMany', {
    customer_id: customerId,
    entries: entries.map(([entryId, amount]) => ({
      entry_id: entryId,
      amount_eur_cents: amount,
      reason: 'seat',
      reference: `ref ${entryId}`,
    })),
  });
const wallet = (replica: WalletReplica, customerId: string) =>
  replica.client.call<{ balance_eur_cents: number; sequence: number }>('GetWallet', { customer_id: customerId, consistent: true });
const ledgerCount = (customerId: string) => store.ledger.countDocuments({ wallet_id: customerId });
const outcomes = (result: DebitManyOutcome) => result.items.map((item) => [item.entry_id, item.outcome, item.balance_eur_cents]);

describe('DebitMany', () => {
  it('applies the entries in request order at contiguous sequences, found by entry id, with the checkpoint they cross', async () => {
    const customer = newWallet();
    for (let index = 1; index <= 14; index++) await credit(suite.replicaA, customer, `t:${customer}:${index}`, 500);
    const result = await debitMany(suite.replicaA, customer, [
      [`s:${customer}:1`, 1200],
      [`s:${customer}:2`, 1200],
      [`s:${customer}:3`, 1500],
    ]);
    expect(result).toMatchObject({ customer_id: customer, balance_eur_cents: 3100, held_eur_cents: 0, sequence: 17 });
    expect(result.items).toEqual([
      {
        entry_id: `s:${customer}:1`,
        outcome: 'applied',
        balance_eur_cents: 5800,
        held_eur_cents: 0,
        sequence: 15,
        balance_delta_eur_cents: -1200,
        held_delta_eur_cents: 0,
      },
      {
        entry_id: `s:${customer}:2`,
        outcome: 'applied',
        balance_eur_cents: 4600,
        held_eur_cents: 0,
        sequence: 16,
        balance_delta_eur_cents: -1200,
        held_delta_eur_cents: 0,
      },
      {
        entry_id: `s:${customer}:3`,
        outcome: 'applied',
        balance_eur_cents: 3100,
        held_eur_cents: 0,
        sequence: 17,
        balance_delta_eur_cents: -1500,
        held_delta_eur_cents: 0,
      },
    ]);
    const listed = await suite.replicaB.client.call<{
      entries: Array<{ entry_id: string; sequence: number; kind: string; reference: string }>;
    }>('ListEntries', { customer_id: customer, limit: 3 });
    expect(listed.entries.map((entry) => [entry.sequence, entry.entry_id, entry.kind, entry.reference])).toEqual([
      [17, `s:${customer}:3`, 'debit', `ref s:${customer}:3`],
      [16, `s:${customer}:2`, 'debit', `ref s:${customer}:2`],
      [15, `s:${customer}:1`, 'debit', `ref s:${customer}:1`],
    ]);
    // The follow-ups complete before the wallet's next movement; one is enough to wait for them.
    await credit(suite.replicaA, customer, `t:${customer}:after`, 100);
    for (const [index, sequence] of [
      [1, 15],
      [2, 16],
      [3, 17],
    ] as const) {
      expect(await store.ledger.findOne({ entry_id: `s:${customer}:${index}` })).toMatchObject({ wallet_id: customer, seq: sequence });
    }
    expect(await store.checkpoints.findOne({ _id: `${customer}:1` })).toMatchObject({ seq: 16, balance_eur_cents: 4600 });
    expect(await wallet(suite.replicaB, customer)).toMatchObject({ balance_eur_cents: 3200, sequence: 18 });
  });

  it('refuses an entry the balance left cannot cover, takes nothing for it, and still applies a cheaper one after it', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:1`, 2000);
    const result = await debitMany(suite.replicaA, customer, [
      [`s:${customer}:1`, 1200],
      [`s:${customer}:2`, 1200],
      [`s:${customer}:3`, 500],
      [`s:${customer}:4`, 400],
    ]);
    expect(outcomes(result)).toEqual([
      [`s:${customer}:1`, 'applied', 800],
      [`s:${customer}:2`, 'insufficient_balance', 800],
      [`s:${customer}:3`, 'applied', 300],
      [`s:${customer}:4`, 'insufficient_balance', 300],
    ]);
    expect(result.items[1]).toMatchObject({ sequence: 2, balance_delta_eur_cents: 0, held_delta_eur_cents: 0 });
    expect(result).toMatchObject({ balance_eur_cents: 300, sequence: 3 });
    expect(await ledgerCount(customer)).toBe(3);
    // A refused entry id is free: after a top-up the same request applies exactly the refused ones.
    await credit(suite.replicaB, customer, `t:${customer}:2`, 2000);
    const again = await debitMany(suite.replicaA, customer, [
      [`s:${customer}:1`, 1200],
      [`s:${customer}:2`, 1200],
      [`s:${customer}:3`, 500],
      [`s:${customer}:4`, 400],
    ]);
    expect(again.items.map((item) => item.outcome)).toEqual(['replay', 'applied', 'replay', 'applied']);
    expect(again).toMatchObject({ balance_eur_cents: 700, sequence: 6 });
  });

  it('on a cold replica, refuses only on the true head and answers an applied entry the balance no longer covers as a replay', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:1`, 1500);
    // Replica A remembers a head of 1,500; replica B moves the wallet behind its back.
    await debitMany(suite.replicaA, customer, [[`s:${customer}:0`, 100]]);
    await credit(suite.replicaB, customer, `t:${customer}:2`, 1000);
    const result = await debitMany(suite.replicaA, customer, [
      [`s:${customer}:1`, 2000],
      [`s:${customer}:2`, 300],
    ]);
    expect(outcomes(result)).toEqual([
      [`s:${customer}:1`, 'applied', 400],
      [`s:${customer}:2`, 'applied', 100],
    ]);
    expect(result.items.map((item) => item.sequence)).toEqual([4, 5]);
    const repeated = await debitMany(suite.replicaB, customer, [
      [`s:${customer}:1`, 2000],
      [`s:${customer}:2`, 300],
      [`s:${customer}:3`, 300],
    ]);
    expect(outcomes(repeated)).toEqual([
      [`s:${customer}:1`, 'replay', 400],
      [`s:${customer}:2`, 'replay', 100],
      [`s:${customer}:3`, 'insufficient_balance', 100],
    ]);
  });

  it('answers a repeated request with replays and moves nothing, and an entry id reused for another amount as a conflict of that entry only', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:1`, 12_000);
    const entries: Array<[string, number]> = Array.from({ length: 10 }, (_, index) => [`s:${customer}:${index}`, 1200]);
    const first = await debitMany(suite.replicaA, customer, entries);
    expect(first.items.every((item) => item.outcome === 'applied')).toBe(true);
    expect(first).toMatchObject({ balance_eur_cents: 0, sequence: 11 });
    // Not enough left for another one: replays are still replays, on either replica.
    for (const replica of [suite.replicaA, suite.replicaB]) {
      const repeated = await debitMany(replica, customer, entries);
      expect(repeated.items.map((item) => item.outcome)).toEqual(Array(10).fill('replay'));
      expect(repeated.items).toEqual(first.items.map((item: DebitManyItem) => ({ ...item, outcome: 'replay' })));
    }
    await credit(suite.replicaB, customer, `t:${customer}:2`, 5_000);
    // New, applied-before and reused ids mixed: the ledger run collides in the middle and the rest is planned again.
    const mixed = await debitMany(suite.replicaA, customer, [
      [`s:${customer}:new1`, 1000],
      [`s:${customer}:3`, 1200],
      [`s:${customer}:new2`, 1000],
      [`s:${customer}:4`, 999],
      [`s:${customer}:new3`, 1000],
    ]);
    expect(outcomes(mixed)).toEqual([
      [`s:${customer}:new1`, 'applied', 4000],
      [`s:${customer}:3`, 'replay', 7200],
      [`s:${customer}:new2`, 'applied', 3000],
      [`s:${customer}:4`, 'conflict', 4000],
      [`s:${customer}:new3`, 'applied', 2000],
    ]);
    expect(mixed.items.map((item) => item.sequence)).toEqual([13, 5, 14, 13, 15]);
    expect(mixed.items[3]).toMatchObject({ balance_delta_eur_cents: 0 });
    expect(await wallet(suite.replicaB, customer)).toMatchObject({ balance_eur_cents: 2000, sequence: 15 });
    expect(await ledgerCount(customer)).toBe(15);
  });

  it('rejects malformed requests with invalid_request and writes nothing', async () => {
    const customer = newWallet();
    const valid = (index: number) => ({ entry_id: `s:${customer}:${index}`, amount_eur_cents: 100, reason: 'seat', reference: '' });
    const cases: Array<{ request: Record<string, unknown>; param: string }> = [
      { request: { customer_id: customer, entries: [] }, param: 'entries' },
      { request: { customer_id: customer, entries: Array.from({ length: 51 }, (_, index) => valid(index)) }, param: 'entries' },
      { request: { customer_id: customer, entries: [valid(1), valid(2), valid(1)] }, param: 'entries[2].entry_id' },
      {
        request: { customer_id: customer, entries: [valid(1), { ...valid(2), amount_eur_cents: 0 }] },
        param: 'entries[1].amount_eur_cents',
      },
      {
        request: { customer_id: customer, entries: [valid(1), { ...valid(2), amount_eur_cents: 2_000_000_000 }] },
        param: 'entries[1].amount_eur_cents',
      },
      { request: { customer_id: customer, entries: [{ ...valid(1), entry_id: 'has space' }] }, param: 'entries[0].entry_id' },
      { request: { customer_id: customer, entries: [valid(1), { ...valid(2), reason: '' }] }, param: 'entries[1].reason' },
      { request: { customer_id: customer, entries: [{ ...valid(1), reference: 'r'.repeat(201) }] }, param: 'entries[0].reference' },
      { request: { customer_id: `${customer}:evil`, entries: [valid(1)] }, param: 'customer_id' },
    ];
    await credit(suite.replicaA, customer, `t:${customer}:1`, 10_000);
    for (const { request, param } of cases) {
      const failure = await suite.replicaA.client.call('DebitMany', request).catch((error: unknown) => error);
      expect(failure, param).toBeInstanceOf(AppError);
      expect(failure, param).toMatchObject({ code: 'invalid_request', param });
    }
    // Fifty is the bound, not a refusal.
    const fifty = await debitMany(
      suite.replicaA,
      customer,
      Array.from({ length: 50 }, (_, index) => [`s:${customer}:fifty:${index}`, 10] as [string, number]),
    );
    expect(fifty.items.filter((item) => item.outcome === 'applied')).toHaveLength(50);
    expect(await ledgerCount(customer)).toBe(51);
    expect(await wallet(suite.replicaB, customer)).toMatchObject({ balance_eur_cents: 9500, sequence: 51 });
  });
});

describe('ordered run batcher', () => {
  it('shares one ordered command between concurrent runs, tells the colliding run its landed suite.prefix, and sends the untried runs again', async () => {
    const collection = suite.mongo
      .db(databaseName(suite.prefix, 'wallet'))
      .collection<{ _id: string; run: number }>(`runs_${crypto.randomBytes(4).toString('hex')}`);
    await collection.insertOne({ _id: 'b:2', run: 0 });
    const batcher = new OrderedRunBatcher(collection, { documentsMax: 100 });
    const run = (name: string, count: number) => Array.from({ length: count }, (_, index) => ({ _id: `${name}:${index}`, run: 1 }));
    // Queued in the same turn, so they share the first command: a whole, b collides at its third document, c and d untried.
    const outcomes = await Promise.all([
      batcher.insert(run('a', 3)),
      batcher.insert(run('b', 5)),
      batcher.insert(run('c', 4)),
      batcher.insert(run('d', 2)),
    ]);
    expect(outcomes.map((outcome) => [outcome.landed, outcome.duplicate ?? false])).toEqual([
      [3, false],
      [2, true],
      [4, false],
      [2, false],
    ]);
    const stored = (await collection.find({ run: 1 }).toArray()).map((document) => document._id).sort();
    expect(stored).toEqual(['a:0', 'a:1', 'a:2', 'b:0', 'b:1', 'c:0', 'c:1', 'c:2', 'c:3', 'd:0', 'd:1']);
    await expect(new OrderedRunBatcher(collection, { queueMax: 3 }).insert(run('e', 4))).rejects.toMatchObject({ code: 'unavailable' });
    expect(await collection.countDocuments({ _id: /^e:/ })).toBe(0);
    await collection.drop();
  });
});

describe('DebitMany under contention', () => {
  it('never applies an entry twice nor goes below zero with DebitMany, Debit and Credit racing on two replicas', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:seed`, 3000);
    const manyRequests = Array.from({ length: 8 }, (_, request) =>
      Array.from({ length: 6 }, (_, index) => [`s:${customer}:m${request}:${index}`, 100 + 10 * index] as [string, number]),
    );
    const operations: Array<Promise<unknown>> = [];
    for (let round = 0; round < 8; round++) {
      const replica = round % 2 === 0 ? suite.replicaA : suite.replicaB;
      const other = round % 2 === 0 ? suite.replicaB : suite.replicaA;
      // Each DebitMany is sent twice, once to each replica, so the same entry ids race each other.
      operations.push(debitMany(replica, customer, manyRequests[round]!), debitMany(other, customer, manyRequests[round]!));
      operations.push(debit(other, customer, `s:${customer}:d${round}`, 250).catch((error: unknown) => error));
      operations.push(credit(replica, customer, `t:${customer}:c${round}`, 400));
    }
    const settled = await Promise.all(operations);
    const appliedBy = new Map<string, number>();
    let debited = 0;
    for (const result of settled) {
      if (result instanceof AppError) {
        expect(result.code).toBe('insufficient_balance');
        continue;
      }
      const items = (result as DebitManyOutcome).items ?? [];
      for (const item of items) {
        expect(item.balance_eur_cents).toBeGreaterThanOrEqual(0);
        if (item.outcome === 'applied') {
          appliedBy.set(item.entry_id, (appliedBy.get(item.entry_id) ?? 0) + 1);
          debited += -item.balance_delta_eur_cents;
        } else {
          expect(['replay', 'insufficient_balance']).toContain(item.outcome);
        }
      }
      if (!('items' in (result as object))) expect((result as { balance_eur_cents: number }).balance_eur_cents).toBeGreaterThanOrEqual(0);
    }
    expect([...appliedBy.values()].every((count) => count === 1)).toBe(true);
    // The store agrees: every applied DebitMany entry is in the ledger exactly once, and the balance adds up.
    const entries = await store.ledger.find({ wallet_id: customer }).toArray();
    const manyInLedger = entries.filter((entry) => entry.entry_id.includes(':m'));
    expect(manyInLedger.map((entry) => entry.entry_id).sort()).toEqual([...appliedBy.keys()].sort());
    expect(manyInLedger.reduce((sum, entry) => sum + entry.amount_eur_cents, 0)).toBe(debited);
    const total = entries.reduce((sum, entry) => sum + (entry.kind === 'credit' ? entry.amount_eur_cents : -entry.amount_eur_cents), 0);
    expect(await wallet(suite.replicaA, customer)).toMatchObject({ balance_eur_cents: total, sequence: entries.length });
  });
});

describe('DebitMany and recovery', () => {
  const silent = createLogger('wallet', { level: 'silent' });
  it('finishes the checkpoint of a run whose writer died right after the ledger insert', async () => {
    const customer = newWallet();
    const dying = crashingLedger(store);
    for (let index = 1; index <= 12; index++)
      await dying.credit({ customerId: customer, entryId: `t:${customer}:${index}`, amountEurCents: 1000, reason: 'topup', reference: '' });
    const run = Array.from({ length: 8 }, (_, index) => ({
      entryId: `crash:${customer}:${index}`,
      amountEurCents: 500,
      reason: 'seat',
      reference: '',
    }));
    await expect(dying.debitMany(customer, run)).rejects.toBeInstanceOf(LedgerCrash);
    // The insert is the commit: the run is in the ledger (sequences 13 to 20), nothing after it was written.
    expect(await ledgerCount(customer)).toBe(20);
    expect(await store.checkpoints.findOne({ _id: `${customer}:1` })).toBeNull();

    // Another replica's periodic (non-thorough) step finishes the run at the head, then remembers that head.
    const survivor = createLedger({ store, clock: systemClock, logger: silent });
    expect(await survivor.repairWallet(customer)).toBeGreaterThanOrEqual(run.length);
    expect(await store.checkpoints.findOne({ _id: `${customer}:1` })).toMatchObject({ seq: 16, balance_eur_cents: 10_000 });
    expect(await survivor.repairWallet(customer)).toBe(0);
    const repeated = await survivor.debitMany(customer, run);
    expect(repeated.items.map((item) => [item.outcome, item.sequence])).toEqual(run.map((_, index) => ['replay', 13 + index]));
    expect(repeated).toMatchObject({ balance_eur_cents: 8000, sequence: 20 });
  });

  it('lets a writer that finds the dead run finish it first, so a refused debit of one of its ids still answers as a replay', async () => {
    const customer = newWallet();
    const dying = crashingLedger(store);
    await dying.credit({ customerId: customer, entryId: `t:${customer}:1`, amountEurCents: 1000, reason: 'topup', reference: '' });
    const run = Array.from({ length: 3 }, (_, index) => ({
      entryId: `crash:${customer}:${index}`,
      amountEurCents: 300,
      reason: 'seat',
      reference: '',
    }));
    await expect(dying.debitMany(customer, run)).rejects.toBeInstanceOf(LedgerCrash);
    // Balance 100 now: a fresh writer cannot cover 300 again, walks to the true head and finds the original.
    const fresh = createLedger({ store, clock: systemClock, logger: silent });
    expect(
      await fresh.debit({ customerId: customer, entryId: run[1]!.entryId, amountEurCents: 300, reason: 'seat', reference: '' }),
    ).toMatchObject({ replay: true, sequence: 3, balance_eur_cents: 400 });
    expect(await ledgerCount(customer)).toBe(4);
  });

  it('announces again only the run at the head when its writer died before announcing it', async () => {
    const customer = newWallet();
    const clock = tickingClock();
    const dying = crashingLedger(store, clock);
    for (let index = 1; index <= 3; index++)
      await dying.credit({ customerId: customer, entryId: `t:${customer}:${index}`, amountEurCents: 1000, reason: 'topup', reference: '' });
    const run = Array.from({ length: 4 }, (_, index) => ({
      customerId: customer,
      entryId: `crash:${customer}:${index}`,
      amountEurCents: 100 + index,
      reason: 'topup',
      reference: '',
    }));
    // The credits of one wallet in a CreditMany go as one run; the writer dies after its insert.
    const items = await dying.creditMany(run);
    expect(items.map((item) => item.outcome)).toEqual(run.map(() => 'failed'));
    expect(await ledgerCount(customer)).toBe(7);

    const announced: CreditedEvent[] = [];
    const survivor = createLedger({ store, clock, logger: silent, publishCredited: (event) => announced.push(event) });
    expect(await survivor.repairWallet(customer)).toBe(run.length);
    let balance = 3000;
    expect(announced).toEqual(
      run.map((credit) => ({ customer_id: customer, entry_id: credit.entryId, balance_eur_cents: (balance += credit.amountEurCents) })),
    );
    // The head is remembered now: the next pass reads one slot and announces nothing.
    announced.length = 0;
    expect(await survivor.repairWallet(customer)).toBe(0);
    expect(announced).toEqual([]);
    // A writer on top of it announces nothing of the run again: it is finished.
    await survivor.credit({ customerId: customer, entryId: `t:${customer}:after`, amountEurCents: 5, reason: 'topup', reference: '' });
    expect(announced.map((event) => event.entry_id)).toEqual([`t:${customer}:after`]);
  });
});
