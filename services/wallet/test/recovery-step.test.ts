import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemClock } from '@mtx/shared/clock';
import { createLogger } from '@mtx/shared/logger';
import { createLedger, type CreditedEvent } from '../src/app/ledger';
import type { LedgerStore } from '../src/store/ledger-store';
import { LedgerCrash, crashingLedger, tickingClock, watchedStores } from './helpers';

// The periodic recovery step on the real store, with every command it sends seen: each test has its own
// database, so the step visits exactly the wallets the test made.
const silent = createLogger('wallet', { level: 'silent' });
const stores = watchedStores('walletstep');
let store: LedgerStore;
const freshStore = () => stores.freshStore();

/** The reads a piece of work sent, as `collection filter-keys` (finds only). */
async function readsDuring(work: () => Promise<unknown>): Promise<string[]> {
  stores.commands.length = 0;
  await work();
  return stores.commands
    .filter((event) => event.commandName === 'find')
    .map((event) => `${String(event.command.find)} ${JSON.stringify(event.command.filter ?? {})}`);
}

const newWallet = () => `cus_${crypto.randomBytes(6).toString('hex')}`;

describe('the periodic recovery step', () => {
  it('reads one slot per wallet this replica moved last, where a replica that did not move them walks each one', async () => {
    store = await freshStore();
    const writer = createLedger({ store, clock: systemClock, logger: silent });
    const wallets = [newWallet(), newWallet(), newWallet()];
    // Past two checkpoints each, so the full check has blocks to gallop over and entries to walk.
    for (const customerId of wallets)
      for (let index = 1; index <= 40; index++)
        await writer.credit({ customerId, entryId: `t:${customerId}:${index}`, amountEurCents: 100, reason: 'topup', reference: '' });

    const reads = await readsDuring(() => writer.recoverStep());
    const ledgerReads = reads.filter((read) => read.startsWith('ledger '));
    expect(ledgerReads.sort()).toEqual(wallets.map((customerId) => `ledger {"_id":"${customerId}:41"}`).sort());
    expect(reads.filter((read) => !read.startsWith('ledger ') && !read.startsWith('wallets '))).toEqual([]);

    // The same step on a replica that remembers none of them does the full check of each.
    const other = createLedger({ store, clock: systemClock, logger: silent });
    const fullReads = await readsDuring(() => other.recoverStep());
    expect(fullReads.filter((read) => read.startsWith('wallet_checkpoints ')).length).toBeGreaterThanOrEqual(wallets.length * 2);
    expect(fullReads.length).toBeGreaterThan(reads.length * 3);
  });

  it('still announces an entry another replica wrote past this replica’s head and died before announcing it', async () => {
    store = await freshStore();
    const clock = tickingClock();
    const announced: CreditedEvent[] = [];
    const survivor = createLedger({ store, clock, logger: silent, publishCredited: (event) => announced.push(event) });
    const customerId = newWallet();
    for (let index = 1; index <= 5; index++)
      await survivor.credit({ customerId, entryId: `t:${customerId}:${index}`, amountEurCents: 100, reason: 'topup', reference: '' });

    const dying = crashingLedger(store, clock);
    await expect(
      dying.credit({ customerId, entryId: `crash:${customerId}`, amountEurCents: 700, reason: 'topup', reference: '' }),
    ).rejects.toBeInstanceOf(LedgerCrash);
    announced.length = 0;

    expect(await survivor.recoverStep()).toMatchObject({ visited: 1, repairedEntries: 1 });
    expect(announced).toEqual([{ customer_id: customerId, entry_id: `crash:${customerId}`, balance_eur_cents: 1_200 }]);
    expect(await survivor.getWallet(customerId)).toMatchObject({ balance_eur_cents: 1_200, sequence: 6 });
    // Remembered now: the next step reads one slot and repeats nothing.
    announced.length = 0;
    expect(await survivor.recoverStep()).toMatchObject({ visited: 1, repairedEntries: 0 });
    expect(announced).toEqual([]);
  });
});

describe('a writer meeting another replica’s entries', () => {
  it('announces again only the run at the head, which a dead writer may have left, not the entries below it', async () => {
    store = await freshStore();
    const clock = tickingClock();
    const heard: Record<'first' | 'second', string[]> = { first: [], second: [] };
    const replica = (name: 'first' | 'second') =>
      createLedger({ store, clock, logger: silent, publishCredited: (event) => heard[name].push(event.entry_id) });
    const [first, second] = [replica('first'), replica('second')];
    const customerId = newWallet();
    const credit = (ledger: ReturnType<typeof createLedger>, entryId: string) =>
      ledger.credit({ customerId, entryId, amountEurCents: 100, reason: 'topup', reference: '' });

    await credit(second, 't:1');
    // The first replica moves the wallet twice (remembering nothing of it, it walks to the head first), then a
    // third process inserts an entry on top and dies before announcing it.
    await credit(first, 't:2');
    await credit(first, 't:3');
    await expect(credit(crashingLedger(store, clock), 'crash:4')).rejects.toBeInstanceOf(LedgerCrash);

    // The second replica still remembers sequence 1: its insert at 2 collides, and it walks to the head.
    expect(await credit(second, 't:5')).toMatchObject({ applied: true, sequence: 5, balance_eur_cents: 500 });
    expect(heard.second).toEqual(['t:1', 'crash:4', 't:5']);
    expect(heard.first).toEqual(['t:1', 't:2', 't:3']);
  });
});
