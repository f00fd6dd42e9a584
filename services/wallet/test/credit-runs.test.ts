import crypto from 'node:crypto';
import type { Document } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '@mtx/shared/clock';
import { createLogger } from '@mtx/shared/logger';
import { debitManyEntriesMax } from '@mtx/shared/service-contract';
import { createLedger, type CreditInput, type CreditedEvent } from '../src/app/ledger';
import type { LedgerStore } from '../src/store/ledger-store';
import { watchedStores } from './helpers';

// A CreditMany's credits of one wallet as runs, on the real store, with every ledger insert it sends seen.
const silent = createLogger('wallet', { level: 'silent' });
const stores = watchedStores('walletruns');
let store: LedgerStore;

beforeEach(async () => {
  store = await stores.freshStore();
  stores.commands.length = 0;
});

const newWallet = () => `cus_${crypto.randomBytes(6).toString('hex')}`;
const credit = (customerId: string, entryId: string, amountEurCents: number): CreditInput => ({
  customerId,
  entryId,
  amountEurCents,
  reason: 'topup',
  reference: entryId,
});

/** The entry ids of each ledger insert command sent since the last reset, in the order they were sent. */
function ledgerInserts(): string[][] {
  return stores.commands
    .filter((event) => event.commandName === 'insert' && event.command.insert === 'ledger')
    .map((event) => (event.command.documents as Document[]).map((document) => String(document.entry_id)));
}

const ledgerOf = (customerId: string) =>
  store.ledger
    .find({ wallet_id: customerId })
    .toArray()
    .then((entries) => entries.sort((first, second) => first.seq - second.seq));

describe('CreditMany runs', () => {
  it("inserts a wallet's credits as one run of contiguous slots, in request order, next to other wallets' credits", async () => {
    const announced: CreditedEvent[] = [];
    const ledger = createLedger({ store, clock: systemClock, logger: silent, publishCredited: (event) => announced.push(event) });
    const [busy, first, second] = [newWallet(), newWallet(), newWallet()];
    const credits = [
      credit(busy, `t:${busy}:1`, 1_000),
      credit(first, `t:${first}:1`, 700),
      credit(busy, `t:${busy}:2`, 250),
      credit(busy, `t:${busy}:3`, 50),
      credit(second, `t:${second}:1`, 900),
      credit(busy, `t:${busy}:4`, 5),
    ];
    const items = await ledger.creditMany(credits);

    expect(items.map((item) => [item.entry_id, item.outcome, item.error_code])).toEqual(
      credits.map((each) => [each.entryId, 'applied', '']),
    );
    // Each credit answers with the head it left, as Credit would.
    const busyItems = items.filter((item) => item.entry_id.startsWith(`t:${busy}:`));
    expect(busyItems.map((item) => [item.sequence, item.balance_eur_cents])).toEqual([
      [1, 1_000],
      [2, 1_250],
      [3, 1_300],
      [4, 1_305],
    ]);
    expect((await ledgerOf(busy)).map((entry) => [entry.seq, entry.entry_id])).toEqual(
      busyItems.map((item) => [item.sequence, item.entry_id]),
    );
    // The busy wallet's four credits went out together: one insert command holds all of them, in order.
    const busyIds = busyItems.map((item) => item.entry_id);
    const carrying = ledgerInserts().filter((documents) => documents.some((entryId) => busyIds.includes(entryId)));
    expect(carrying.map((documents) => documents.filter((entryId) => busyIds.includes(entryId)))).toEqual([busyIds]);
    expect(await ledger.getWallet(busy, { consistent: true })).toMatchObject({ balance_eur_cents: 1_305, sequence: 4 });
    // Every credit announced once, and found by its entry id.
    expect(announced.map((event) => event.entry_id).sort()).toEqual(credits.map((each) => each.entryId).sort());
    for (const each of credits)
      expect(await ledger.findEntries([{ customerId: each.customerId, entryId: each.entryId }])).toEqual([
        { entry_id: each.entryId, applied: true, sequence: items.find((item) => item.entry_id === each.entryId)!.sequence },
      ]);
  });

  it('answers replays and a reused entry id inside a run, and applies the rest once', async () => {
    const ledger = createLedger({ store, clock: systemClock, logger: silent });
    const customer = newWallet();
    await ledger.creditMany([credit(customer, `t:${customer}:1`, 400), credit(customer, `t:${customer}:2`, 600)]);
    await ledger.debit({ customerId: customer, entryId: `s:${customer}:1`, amountEurCents: 300, reason: 'seat', reference: '' });

    // Another replica, which remembers nothing of this wallet, is handed a batch repeating some of it.
    const other = createLedger({ store, clock: systemClock, logger: silent });
    const items = await other.creditMany([
      credit(customer, `t:${customer}:2`, 600),
      credit(customer, `t:${customer}:3`, 800),
      credit(customer, `s:${customer}:1`, 300),
      credit(customer, `t:${customer}:1`, 400),
      credit(customer, `t:${customer}:4`, 10),
    ]);
    expect(items.map((item) => [item.entry_id, item.outcome, item.error_code])).toEqual([
      [`t:${customer}:2`, 'replay', ''],
      [`t:${customer}:3`, 'applied', ''],
      [`s:${customer}:1`, 'failed', 'conflict'],
      [`t:${customer}:1`, 'replay', ''],
      [`t:${customer}:4`, 'applied', ''],
    ]);
    expect(items[0]).toMatchObject({ sequence: 2, balance_delta_eur_cents: 600 });
    expect(items[2]!.error_message).toContain('already used for a different movement');
    expect((await ledgerOf(customer)).map((entry) => entry.entry_id)).toEqual([
      `t:${customer}:1`,
      `t:${customer}:2`,
      `s:${customer}:1`,
      `t:${customer}:3`,
      `t:${customer}:4`,
    ]);
    expect(await other.getWallet(customer, { consistent: true })).toMatchObject({ balance_eur_cents: 1_510, sequence: 5 });
  });

  it(`splits a wallet's credits into runs of at most ${debitManyEntriesMax}, still in request order`, async () => {
    const ledger = createLedger({ store, clock: systemClock, logger: silent });
    const customer = newWallet();
    const count = debitManyEntriesMax + 10;
    const credits = Array.from({ length: count }, (_, index) => credit(customer, `t:${customer}:${index + 1}`, 100 + index));
    const items = await ledger.creditMany(credits);

    expect(items.map((item) => [item.outcome, item.sequence])).toEqual(credits.map((_, index) => ['applied', index + 1]));
    expect((await ledgerOf(customer)).map((entry) => entry.entry_id)).toEqual(credits.map((each) => each.entryId));
    const perCommand = ledgerInserts().map((documents) => documents.length);
    expect(perCommand.reduce((sum, documents) => sum + documents, 0)).toBe(count);
    expect(Math.max(...perCommand)).toBeLessThanOrEqual(debitManyEntriesMax);
    const total = credits.reduce((sum, each) => sum + each.amountEurCents, 0);
    expect(await ledger.getWallet(customer, { consistent: true })).toMatchObject({ balance_eur_cents: total, sequence: count });
  });
});
