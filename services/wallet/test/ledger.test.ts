import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { databaseName } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { auditLedger } from '../src/app';
import { createLedgerStore } from '../src/store/ledger-store';
import { creditCall, debitCall, startWalletReplica, twoReplicasOnOneStore, type WalletReplica } from './helpers';

const suite = twoReplicasOnOneStore('wallet');

const newWallet = () => `cus_${crypto.randomBytes(6).toString('hex')}`;

const credit = creditCall;
const debit = debitCall;
const wallet = (replica: WalletReplica, customerId: string) =>
  replica.client.call('GetWallet', { customer_id: customerId, consistent: true });
const ledgerCount = (customerId: string) =>
  createLedgerStore(suite.mongo.db(databaseName(suite.prefix, 'wallet'))).ledger.countDocuments({ wallet_id: customerId });

describe('movements', () => {
  it('credits and debits, reporting the head after each, and lists entries newest first', async () => {
    const customer = newWallet();
    expect(await wallet(suite.replicaA, customer)).toMatchObject({
      balance_eur_cents: 0,
      held_eur_cents: 0,
      sequence: 0,
      balance_cap_eur_cents: 100000,
    });
    const first = await credit(suite.replicaA, customer, `t:${customer}:1`, 2500);
    expect(first).toMatchObject({
      applied: true,
      replay: false,
      balance_eur_cents: 2500,
      sequence: 1,
      balance_delta_eur_cents: 2500,
      held_delta_eur_cents: 0,
    });
    const second = await debit(suite.replicaB, customer, `s:${customer}:1`, 1200);
    expect(second).toMatchObject({ applied: true, balance_eur_cents: 1300, sequence: 2, balance_delta_eur_cents: -1200 });
    expect(await wallet(suite.replicaA, customer)).toMatchObject({ balance_eur_cents: 1300, sequence: 2 });
    const listed = await suite.replicaA.client.call<{
      entries: Array<{ entry_id: string; sequence: number; kind: string; balance_after_eur_cents: number }>;
    }>('ListEntries', { customer_id: customer, limit: 10 });
    expect(listed.entries.map((entry) => [entry.sequence, entry.kind, entry.balance_after_eur_cents])).toEqual([
      [2, 'debit', 1300],
      [1, 'credit', 2500],
    ]);
  });

  it('applies an entry id once: a repeat is a replay describing the original, a different movement under it is a conflict', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:a`, 1000);
    await credit(suite.replicaA, customer, `t:${customer}:b`, 500);
    const replay = await credit(suite.replicaB, customer, `t:${customer}:a`, 1000);
    expect(replay).toMatchObject({ applied: false, replay: true, sequence: 1, balance_eur_cents: 1000, balance_delta_eur_cents: 1000 });
    await expect(credit(suite.replicaA, customer, `t:${customer}:a`, 999)).rejects.toMatchObject({ code: 'conflict' });
    await expect(debit(suite.replicaA, customer, `t:${customer}:a`, 1000)).rejects.toMatchObject({ code: 'conflict' });
    expect(await wallet(suite.replicaB, customer)).toMatchObject({ balance_eur_cents: 1500, sequence: 2 });
    expect(await ledgerCount(customer)).toBe(2);
  });

  it('refuses a debit the balance cannot cover without writing, and lets the same entry id succeed later', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:1`, 1000);
    const refused = await debit(suite.replicaA, customer, `s:${customer}:renewal`, 1200).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'insufficient_balance' });
    expect(await ledgerCount(customer)).toBe(1);
    await credit(suite.replicaB, customer, `t:${customer}:2`, 500);
    expect(await debit(suite.replicaA, customer, `s:${customer}:renewal`, 1200)).toMatchObject({ applied: true, balance_eur_cents: 300 });
    // Once applied, a retry is a replay even though the balance could no longer cover it.
    expect(await debit(suite.replicaB, customer, `s:${customer}:renewal`, 1200)).toMatchObject({ replay: true, balance_eur_cents: 300 });
  });

  it('rejects malformed movements with invalid_request and writes nothing', async () => {
    const customer = newWallet();
    const cases: Array<Record<string, unknown>> = [
      { customer_id: customer, entry_id: 'x:1', amount_eur_cents: 0, reason: 'topup' },
      { customer_id: customer, entry_id: 'x:2', amount_eur_cents: -5, reason: 'topup' },
      { customer_id: `${customer}:evil`, entry_id: 'x:3', amount_eur_cents: 5, reason: 'topup' },
      { customer_id: customer, entry_id: '', amount_eur_cents: 5, reason: 'topup' },
      { customer_id: customer, entry_id: 'has space', amount_eur_cents: 5, reason: 'topup' },
      { customer_id: customer, entry_id: 'x:4', amount_eur_cents: 5, reason: '' },
      { customer_id: customer, entry_id: 'x:5', amount_eur_cents: 2_000_000_000, reason: 'topup' },
    ];
    for (const request of cases) {
      await expect(suite.replicaA.client.call('Credit', request), JSON.stringify(request)).rejects.toMatchObject({
        code: 'invalid_request',
      });
    }
    expect(await ledgerCount(customer)).toBe(0);
  });
});

describe('balance cap', () => {
  it('holds what does not fit and moves it in, oldest first, in the same entry that makes room', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:1`, 90_000);
    const over = await credit(suite.replicaA, customer, `t:${customer}:2`, 30_000);
    expect(over).toMatchObject({
      balance_eur_cents: 100_000,
      held_eur_cents: 20_000,
      balance_delta_eur_cents: 10_000,
      held_delta_eur_cents: 20_000,
    });
    const more = await credit(suite.replicaB, customer, `t:${customer}:3`, 5_000);
    expect(more).toMatchObject({
      balance_eur_cents: 100_000,
      held_eur_cents: 25_000,
      balance_delta_eur_cents: 0,
      held_delta_eur_cents: 5_000,
    });
    const roomy = await debit(suite.replicaA, customer, `s:${customer}:1`, 15_000);
    expect(roomy).toMatchObject({
      balance_eur_cents: 100_000,
      held_eur_cents: 10_000,
      balance_delta_eur_cents: 0,
      held_delta_eur_cents: -15_000,
    });
    const drain = await debit(suite.replicaB, customer, `s:${customer}:2`, 30_000);
    expect(drain).toMatchObject({
      balance_eur_cents: 80_000,
      held_eur_cents: 0,
      balance_delta_eur_cents: -20_000,
      held_delta_eur_cents: -10_000,
    });
    expect(await wallet(suite.replicaA, customer)).toMatchObject({ balance_eur_cents: 80_000, held_eur_cents: 0, sequence: 5 });
  });
});

describe('concurrency', () => {
  it('takes exactly 50 of 100 concurrent debits of 10 from 500, across two replicas, ending at 0', async () => {
    const customer = newWallet();
    await credit(suite.replicaA, customer, `t:${customer}:seed`, 500);
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, index) =>
        debit(index % 2 === 0 ? suite.replicaA : suite.replicaB, customer, `s:${customer}:${index}`, 10),
      ),
    );
    const succeeded = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    expect(succeeded.length).toBe(50);
    expect(refused.every((result) => (result as PromiseRejectedResult).reason.code === 'insufficient_balance')).toBe(true);
    expect(await wallet(suite.replicaB, customer)).toMatchObject({ balance_eur_cents: 0, sequence: 51 });
    expect(await ledgerCount(customer)).toBe(51);
  });

  it('applies one credit when the same entry id arrives 50 times in parallel on two replicas', async () => {
    const customer = newWallet();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        credit(index % 2 === 0 ? suite.replicaA : suite.replicaB, customer, `t:${customer}:dup`, 777),
      ),
    );
    expect(results.filter((result) => result.applied).length).toBe(1);
    expect(results.every((result) => result.balance_eur_cents === 777 && result.sequence === 1)).toBe(true);
    expect(await wallet(suite.replicaA, customer)).toMatchObject({ balance_eur_cents: 777, sequence: 1 });
  });

  it('keeps every cent when many wallets move at once on both replicas', async () => {
    const customers = Array.from({ length: 8 }, newWallet);
    await Promise.all(
      customers.flatMap((customer) =>
        Array.from({ length: 12 }, (_, index) =>
          credit(index % 2 === 0 ? suite.replicaA : suite.replicaB, customer, `t:${customer}:${index}`, 100 + index),
        ),
      ),
    );
    const expected = Array.from({ length: 12 }, (_, index) => 100 + index).reduce((sum, value) => sum + value, 0);
    for (const customer of customers)
      expect(await wallet(suite.replicaB, customer)).toMatchObject({ balance_eur_cents: expected, sequence: 12 });
  });
});

describe('cold starts', () => {
  it('finds the head of a long ledger from its checkpoints on a replica that has never seen the wallet', async () => {
    const customer = newWallet();
    for (let index = 1; index <= 50; index++) await credit(suite.replicaA, customer, `t:${customer}:${index}`, 10);
    const store = createLedgerStore(suite.mongo.db(databaseName(suite.prefix, 'wallet')));
    expect(
      (await store.checkpoints.find({ wallet_id: customer }).toArray()).map((checkpoint) => checkpoint.seq).sort((a, b) => a - b),
    ).toEqual([16, 32, 48]);
    const cold = await startWalletReplica({ mongo: suite.mongo, prefix: suite.prefix });
    try {
      expect(await wallet(cold, customer)).toMatchObject({ balance_eur_cents: 500, sequence: 50 });
      expect(await debit(cold, customer, `s:${customer}:cold`, 20)).toMatchObject({ applied: true, balance_eur_cents: 480, sequence: 51 });
      expect(await credit(cold, customer, `t:${customer}:3`, 10)).toMatchObject({ replay: true, sequence: 3 });
    } finally {
      await cold.close();
    }
  });
});

describe('recovery step', () => {
  it('finishes the head entry of a writer that died after its insert, on a periodic (non-thorough) step', async () => {
    const customer = newWallet();
    for (let index = 1; index <= 15; index++) await credit(suite.replicaA, customer, `t:${customer}:${index}`, 10);
    const store = createLedgerStore(suite.mongo.db(databaseName(suite.prefix, 'wallet')));
    // What a replica that died right after its insert leaves behind: the entry, nothing else.
    await store.ledger.insertOne({
      _id: `${customer}:16`,
      wallet_id: customer,
      seq: 16,
      entry_id: `t:${customer}:orphan`,
      kind: 'credit',
      reason: 'topup',
      reference: '',
      amount_eur_cents: 40,
      balance_delta_eur_cents: 40,
      held_delta_eur_cents: 0,
      balance_after_eur_cents: 190,
      held_after_eur_cents: 0,
      created_at: new Date(),
    });
    for (;;) if ((await suite.replicaB.app.ledger.recoverStep()).wrapped) break;
    expect(await store.checkpoints.findOne({ _id: `${customer}:1` })).toMatchObject({ seq: 16, balance_eur_cents: 190 });
    expect(await credit(suite.replicaB, customer, `t:${customer}:orphan`, 40)).toMatchObject({ replay: true, balance_eur_cents: 190 });
  });
});

describe('audit', () => {
  it('reports each breach of a damaged ledger', async () => {
    const damagedPrefix = testDatabasePrefix('walletbad');
    const database = suite.mongo.db(databaseName(damagedPrefix, 'wallet'));
    const store = createLedgerStore(database);
    const entry = (walletId: string, seq: number, fields: Record<string, unknown>) => ({
      _id: `${walletId}:${seq}`,
      wallet_id: walletId,
      seq,
      entry_id: `${walletId}:e${seq}`,
      kind: 'credit',
      reason: 'topup',
      reference: '',
      amount_eur_cents: 100,
      balance_delta_eur_cents: 100,
      held_delta_eur_cents: 0,
      balance_after_eur_cents: 100 * seq,
      held_after_eur_cents: 0,
      created_at: new Date(),
      ...fields,
    });
    try {
      await store.ledger.insertMany([
        entry('gap', 1, {}),
        entry('gap', 3, { balance_after_eur_cents: 200 }),
        entry('sum', 1, { balance_after_eur_cents: 150 }),
        entry('neg', 1, {}),
        entry('neg', 2, { kind: 'debit', amount_eur_cents: 300, balance_delta_eur_cents: -300, balance_after_eur_cents: -200 }),
        entry('cap', 1, { amount_eur_cents: 120_000, balance_delta_eur_cents: 120_000, balance_after_eur_cents: 120_000 }),
        ...Array.from({ length: 16 }, (_, index) => entry('chk', index + 1, {})),
      ] as never[]);
      const now = new Date();
      await store.wallets.insertMany(['gap', 'sum', 'neg', 'chk'].map((id) => ({ _id: id, created_at: now })));
      await store.checkpoints.insertMany([
        { _id: 'neg:1', wallet_id: 'neg', block: 1, seq: 16, balance_eur_cents: 0, held_eur_cents: 0, created_at: now },
        { _id: 'chk:1', wallet_id: 'chk', block: 1, seq: 16, balance_eur_cents: 999, held_eur_cents: 0, created_at: now },
      ]);
      const report = await auditLedger(database);
      expect(report.ok).toBe(false);
      const text = report.breaches.join('\n');
      expect(text).toMatch(/wallet gap: .*sequence 3 where 2 was expected/);
      expect(text).toMatch(/wallet sum: .*balance_after 150 != previous 0 \+ delta 100/);
      expect(text).toMatch(/wallet neg: .*debit of 300 taken from a balance of 100/);
      expect(text).toMatch(/wallet neg: .*balance -200 is negative/);
      expect(text).toMatch(/wallet neg: checkpoint 1: sequence 16 is ahead of the ledger head 2/);
      expect(text).toMatch(/wallet cap: .*exceeds the cap of 100000/);
      expect(text).toMatch(/wallet cap: has 1 ledger entries but is not registered/);
      expect(text).toMatch(/wallet chk: checkpoint 1 .* disagrees with the ledger \(balance 1600/);
    } finally {
      await database.dropDatabase().catch(() => undefined);
    }
  });
});
