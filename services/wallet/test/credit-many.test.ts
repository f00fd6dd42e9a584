import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseName } from '@mtx/shared/mongo';
import { balanceCapEurCents } from '../src/domain/movement';
import { createLedgerStore, type LedgerStore } from '../src/store/ledger-store';
import { creditCall, debitCall, twoReplicasOnOneStore, type WalletReplica } from './helpers';

const suite = twoReplicasOnOneStore('walletcm');
let store: LedgerStore;

beforeAll(() => {
  store = createLedgerStore(suite.mongo.db(databaseName(suite.prefix, 'wallet')));
});

const newWallet = () => `cus_${crypto.randomBytes(6).toString('hex')}`;

interface CreditManyItem {
  entry_id: string;
  outcome: string;
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
  error_code: string;
}

const creditMany = (replica: WalletReplica, credits: Array<[customerId: string, entryId: string, amount: number]>) =>
  replica.client
    .call<{ items: CreditManyItem[] }>('CreditMany', {
      credits: credits.map(([customerId, entryId, amount]) => ({
        customer_id: customerId,
        entry_id: entryId,
        amount_eur_cents: amount,
        reason: 'topup',
        reference: entryId,
      })),
    })
    .then((answer) => answer.items);
const wallet = (customerId: string) =>
  suite.replicaA.client.call<{ balance_eur_cents: number; held_eur_cents: number; sequence: number }>('GetWallet', {
    customer_id: customerId,
    consistent: true,
  });
const ledgerCount = (customerId: string) => store.ledger.countDocuments({ wallet_id: customerId });

describe('CreditMany', () => {
  it('credits several wallets in one call, one item per credit in request order, each exactly as Credit would', async () => {
    const [first, second] = [newWallet(), newWallet()];
    const items = await creditMany(suite.replicaA, [
      [first, `t:${first}:1`, 1000],
      [second, `t:${second}:1`, 2500],
      [first, `t:${first}:2`, 300],
    ]);
    expect(items.map((item) => [item.entry_id, item.outcome, item.error_code])).toEqual([
      [`t:${first}:1`, 'applied', ''],
      [`t:${second}:1`, 'applied', ''],
      [`t:${first}:2`, 'applied', ''],
    ]);
    expect(items[1]).toMatchObject({ balance_eur_cents: 2500, sequence: 1, balance_delta_eur_cents: 2500, held_delta_eur_cents: 0 });
    // Two credits of one wallet: both at their own sequence, adding up.
    expect(
      items
        .filter((item) => item.entry_id.includes(first))
        .map((item) => item.sequence)
        .sort(),
    ).toEqual([1, 2]);
    expect(await wallet(first)).toMatchObject({ balance_eur_cents: 1300, sequence: 2 });
    expect(await wallet(second)).toMatchObject({ balance_eur_cents: 2500, sequence: 1 });
  });

  it('answers a repeated credit as a replay and a reused entry id as a failed item, crediting the others', async () => {
    const customer = newWallet();
    await creditCall(suite.replicaA, customer, `t:${customer}:1`, 4000);
    await debitCall(suite.replicaA, customer, `s:${customer}:1`, 1200);
    const items = await creditMany(suite.replicaB, [
      [customer, `t:${customer}:1`, 4000],
      [customer, `s:${customer}:1`, 1200],
      [customer, `t:${customer}:2`, 700],
    ]);
    expect(items.map((item) => [item.outcome, item.error_code])).toEqual([
      ['replay', ''],
      ['failed', 'conflict'],
      ['applied', ''],
    ]);
    expect(items[0]).toMatchObject({ sequence: 1, balance_delta_eur_cents: 4000 });
    expect(await wallet(customer)).toMatchObject({ balance_eur_cents: 3500, sequence: 3 });
    expect(await ledgerCount(customer)).toBe(3);
  });

  it('holds what does not fit under the cap, as Credit does', async () => {
    const customer = newWallet();
    await creditCall(suite.replicaA, customer, `t:${customer}:0`, balanceCapEurCents - 1000);
    const [item] = await creditMany(suite.replicaA, [[customer, `t:${customer}:1`, 3000]]);
    expect(item).toMatchObject({ outcome: 'applied', balance_delta_eur_cents: 1000, held_delta_eur_cents: 2000 });
    expect(await wallet(customer)).toMatchObject({ balance_eur_cents: balanceCapEurCents, held_eur_cents: 2000 });
  });

  it('credits each entry once when two replicas are handed the same batch at once', async () => {
    const customers = Array.from({ length: 8 }, newWallet);
    const batch = customers.flatMap(
      (customer): Array<[string, string, number]> => [
        [customer, `t:${customer}:a`, 1100],
        [customer, `t:${customer}:b`, 900],
      ],
    );
    const [onA, onB] = await Promise.all([creditMany(suite.replicaA, batch), creditMany(suite.replicaB, batch)]);
    for (let index = 0; index < batch.length; index++) {
      expect([onA[index]!.outcome, onB[index]!.outcome].sort()).toEqual(['applied', 'replay']);
    }
    for (const customer of customers) {
      expect(await wallet(customer)).toMatchObject({ balance_eur_cents: 2000, sequence: 2 });
      expect(await ledgerCount(customer)).toBe(2);
    }
  });

  it('refuses malformed input as a whole and writes nothing', async () => {
    const customer = newWallet();
    const refusals: Array<[string, unknown]> = [
      ['no credits', { credits: [] }],
      ['too many credits', { credits: Array.from({ length: 501 }, (_, index) => credit(customer, `t:${customer}:${index}`, 100)) }],
      ['a repeated entry id', { credits: [credit(customer, `t:${customer}:1`, 100), credit(customer, `t:${customer}:1`, 100)] }],
      ['a zero amount', { credits: [credit(customer, `t:${customer}:2`, 100), credit(customer, `t:${customer}:3`, 0)] }],
      ['a bad wallet id', { credits: [credit(customer, `t:${customer}:4`, 100), credit('not a wallet', `t:${customer}:5`, 100)] }],
    ];
    for (const [label, request] of refusals) {
      await expect(suite.replicaA.client.call('CreditMany', request), label).rejects.toMatchObject({ code: 'invalid_request' });
    }
    expect(await ledgerCount(customer)).toBe(0);
    expect(await wallet(customer)).toMatchObject({ balance_eur_cents: 0, sequence: 0 });
  });
});

describe('FindEntries', () => {
  const findEntries = (replica: WalletReplica, keys: Array<[customerId: string, entryId: string]>) =>
    replica.client
      .call<{ items: Array<{ entry_id: string; applied: boolean; sequence: number }> }>('FindEntries', {
        entries: keys.map(([customerId, entryId]) => ({ customer_id: customerId, entry_id: entryId })),
      })
      .then((answer) => answer.items);
  // An entry's pointer follows its insert by a moment (the credit is answered first): asks until the entries
  // credited before the call read as applied, or 1 s has passed.
  const settledFind = async (replica: WalletReplica, keys: Array<[customerId: string, entryId: string]>) => {
    const deadlineMs = Date.now() + 1_000;
    for (;;) {
      const found = await findEntries(replica, keys);
      if (found.filter((item) => item.applied).length >= keys.filter(([, entryId]) => !entryId.includes('never')).length) return found;
      if (Date.now() > deadlineMs) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('tells applied entries from unknown ones, in request order, on any replica', async () => {
    const [first, second] = [newWallet(), newWallet()];
    const credited = await creditMany(suite.replicaA, [
      [first, `t:${first}:1`, 500],
      [second, `t:${second}:1`, 700],
    ]);
    const found = await settledFind(suite.replicaB, [
      [second, `t:${second}:1`],
      [first, `t:${first}:never`],
      [first, `t:${first}:1`],
    ]);
    expect(found).toEqual([
      { entry_id: `t:${second}:1`, applied: true, sequence: credited[1]!.sequence },
      { entry_id: `t:${first}:never`, applied: false, sequence: 0 },
      { entry_id: `t:${first}:1`, applied: true, sequence: credited[0]!.sequence },
    ]);
  });

  it("never answers for another wallet's entry", async () => {
    const [owner, other] = [newWallet(), newWallet()];
    await creditCall(suite.replicaA, owner, `t:${owner}:1`, 900);
    expect(await settledFind(suite.replicaA, [[owner, `t:${owner}:1`]])).toEqual([
      { entry_id: `t:${owner}:1`, applied: true, sequence: 1 },
    ]);
    expect(await findEntries(suite.replicaA, [[other, `t:${owner}:1`]])).toEqual([
      { entry_id: `t:${owner}:1`, applied: false, sequence: 0 },
    ]);
  });

  it('refuses malformed input as a whole', async () => {
    const customer = newWallet();
    const refusals: Array<[string, unknown]> = [
      ['no entries', { entries: [] }],
      ['too many entries', { entries: Array.from({ length: 501 }, (_, index) => ({ customer_id: customer, entry_id: `t:${index}` })) }],
      ['a bad wallet id', { entries: [{ customer_id: 'not a wallet', entry_id: 't:1' }] }],
      ['a bad entry id', { entries: [{ customer_id: customer, entry_id: 'has a space' }] }],
    ];
    for (const [label, request] of refusals) {
      await expect(suite.replicaA.client.call('FindEntries', request), label).rejects.toMatchObject({ code: 'invalid_request' });
    }
  });
});

function credit(customerId: string, entryId: string, amount: number) {
  return { customer_id: customerId, entry_id: entryId, amount_eur_cents: amount, reason: 'topup', reference: entryId };
}
