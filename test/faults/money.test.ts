/**
 * Faults on the money path under load: wallet, payments and billing killed between their ledger write and the
 * update that follows it (fault hooks, armed only in this stack), a storm of postbacks with duplicates, reversed
 * order and bad signatures, and seeded races of credits and debits on one wallet across two wallet replicas.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createUnaryClient } from '@mtx/shared/grpc';
import { databaseName } from '@mtx/shared/mongo';
import { eventually } from '@mtx/shared/testing';
import { redeliver, startLoad, type LoadOptions } from './load';
import { errorKind, FaultStack, sleep, walletCapEurCents, type Customer, type HttpAnswer, type TopupForPostbacks } from './stack';
import { printSummary, seededRandom, seedFromEnvironment } from './summary';
import { btcpayStorm, nowPaymentsStorm, sandboxStorm } from './storm';
import { recordAndAssert, tally, verifyAfterFault } from './verify';

const walletCrashPrefix = 'topup:sandbox:walletcrash-';
const paymentsCrashPrefix = 'topup:sandbox:paymentscrash-';
const billingCrashCustomerPrefix = 'cus_billcrash';

let stack: FaultStack;
let loadCustomers: Customer[];
let loadTopups: TopupForPostbacks[];

beforeAll(async () => {
  stack = await FaultStack.start({
    label: 'money',
    env: {
      PAYMENTS_INBOX_SWEEP_INTERVAL_MS: String(sweepIntervalMs),
      WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE: walletCrashPrefix,
      PAYMENTS_FAULT_CRASH_BEFORE_CREDIT: paymentsCrashPrefix,
      BILLING_FAULT_CRASH_AFTER_DEBIT: billingCrashCustomerPrefix,
      // Payments also takes NOWPayments' IPNs (row 5), from the crypto-sandbox's fake: the devstack points the
      // development key at it (docs/providers/nowpayments.md).
      NOWPAYMENTS_API_KEY: 'local-only-nowpayments-api-key',
      // A purchase cut off by a crash is settled by billing's scheduler this long after it began.
      PENDING_PURCHASE_RECOVERY_MS: '8000',
    },
  });
  ({ customers: loadCustomers, topups: loadTopups } = await stack.loadCustomers(['moneya', 'moneyb']));
}, 240_000);

afterAll(async () => {
  if (stack?.serviceErrors.length)
    process.stdout.write(`[faults/money] service error lines (see ${stack.logFile}):\n${stack.serviceErrors.slice(-15).join('\n')}\n`);
  await stack?.close();
  printSummary();
});

function loadOptions(seed: number, overrides: Partial<LoadOptions> = {}): LoadOptions {
  return {
    customers: loadCustomers,
    seed,
    concurrency: 3,
    durationMs: 20_000,
    requestsMax: 1_500,
    pauseMs: 15,
    topups: loadTopups,
    mix: { wallet: 3, orders: 1, credit: 3, debit: 2, subscription: 1 },
    ...overrides,
  };
}

/** A top-up as its customer sees it; a 503 while a restarted backend is being reconnected to is retried. */
async function topupView(
  customer: Customer,
  topupId: number,
): Promise<{ status: string; credited_eur_cents: number; amount_eur_cents: number }> {
  return eventually(
    async () => {
      const answer = await stack.api(customer.readKey, 'GET', `/v1/wallet/topup/${topupId}`);
      if (answer.status === 503) return undefined;
      if (answer.status !== 200) throw new Error(`GET top-up ${topupId} answered ${answer.status}`);
      return answer.body;
    },
    10_000,
    200,
  );
}

const sweepIntervalMs = 1_000;

/**
 * Waits until a credit is in the ledger and the customer's top-up shows it (payments asks the wallet, which
 * answers from the ledger by entry id); its wait in ms, or null after 15 s. That the
 * inbox record is settled after it is verifyAfterFault's check (the inbox drains).
 */
async function creditShown(customer: Customer, topupId: number, entryId: string): Promise<number | null> {
  const startedAtMs = Date.now();
  for (;;) {
    if ((await stack.ledgerEntries({ entry_id: entryId })).length === 1) {
      const answer = await stack.api(customer.readKey, 'GET', `/v1/wallet/topup/${topupId}`);
      if (answer.status === 200 && answer.body.status === 'paid') return Date.now() - startedAtMs;
    }
    if (Date.now() - startedAtMs > 15_000) return null;
    await sleep(50);
  }
}

/** Delivers a callback until it is accepted (the provider's retry), for the recovery step of a crash. */
async function untilAccepted(deliver: () => Promise<HttpAnswer>, deadlineMs = 30_000): Promise<HttpAnswer> {
  return eventually(
    async () => {
      const answer = await deliver();
      return answer.status === 200 ? answer : undefined;
    },
    deadlineMs,
    250,
  );
}

/** A sandbox postback delivered again until accepted, with a fresh signed timestamp each time, as the sandbox does. */
function deliverUntilAccepted(body: string): Promise<HttpAnswer> {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  return untilAccepted(() => stack.postback(JSON.stringify({ ...parsed, timestamp: new Date().toISOString() })));
}

describe('fault suite: money', () => {
  it('4a. wallet SIGKILL between the ledger write and the head update: recovery repairs it, credited once', async () => {
    const seed = seedFromEnvironment('wallet crash');
    const startedAtMs = Date.now();
    const customer = await stack.newCustomer('walletcrash', { balanceEurCents: 1_000 });
    const topup = await stack.createTopup(customer, 6_000);
    const load = startLoad(stack, loadOptions(seed));
    await sleep(1_000);
    const wallet = stack.service('wallet');
    const body = stack.postbackBody(topup, `walletcrash-${seed}-${crypto.randomBytes(3).toString('hex')}`, topup.depositUnits, 'confirmed');
    const entryId = `topup:sandbox:${JSON.parse(body).transaction.id}`;
    const crashed = await stack.postback(body);
    // Recorded in the inbox and acknowledged; the wallet then dies inside the crediting worker's CreditMany,
    // after its insert, so that batch's records stay unsettled in the inbox for the sweep.
    expect(crashed.status, JSON.stringify(crashed.body)).toBe(200);
    expect(crashed.body.outcome).toBe('recorded');
    expect(await wallet.exited()).toBe(137);
    expect(await stack.ledgerEntries({ entry_id: entryId })).toHaveLength(1);
    const credits = await stack.creditAnnouncements();
    await wallet.restart();
    const restartedAtMs = Date.now();
    // The inbox delivers the record again; the wallet answers its credit as a replay and the record is settled.
    const cleared = creditShown(customer, topup.id, entryId).then((sweptMs) => ({ sweptMs, clearedAtMs: Date.now() }));
    // The start-up sweep finishes what the crash left undone: the credit's announcement, which the dead
    // process never made (a replay of the credit makes none).
    await eventually(async () => credits.announced.includes(entryId) || undefined, 10_000, 200);
    credits.stop();
    const auditAfterRecovery = await stack.audit();
    const { sweptMs, clearedAtMs } = await cleared;
    const creditedAfterRestartMs = clearedAtMs - restartedAtMs;
    const redelivered = await deliverUntilAccepted(body);
    const report = await load.stop();
    const loadRedelivered = await redeliver(stack, report.undelivered);
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, customer],
      batchIds: report.batchIds,
      credits: [
        ...report.acknowledgedCredits,
        ...loadRedelivered,
        { customerId: customer.id, entryId, amountEurCents: topup.amountEurCents },
      ],
      debits: report.acknowledgedDebits,
    });
    const entries = await stack.ledgerEntries({ entry_id: entryId });
    const balance = await stack.balance(customer.id);
    recordAndAssert(stack, {
      fault: '4a. wallet SIGKILL after ledger insert (hook)',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: 2 + loadRedelivered.length,
      scenarioErrors: {},
      verdict,
      notes: `credit shown on the top-up ${creditedAfterRestartMs} ms after the wallet restarted (sweep every ${sweepIntervalMs} ms); redelivery answered ${redelivered.body.outcome}; balance ${balance.balance_eur_cents}`,
    });
    expect(sweptMs).not.toBeNull();
    // The inbox delivers the record again every interval; the first delivery after the wallet is back credits it.
    expect(creditedAfterRestartMs).toBeLessThanOrEqual(sweepIntervalMs + 1_500);
    expect(redelivered.body.outcome).toBe('duplicate');
    expect(auditAfterRecovery.breaches).toEqual([]);
    expect(entries).toHaveLength(1);
    expect(balance.balance_eur_cents).toBe(1_000 + topup.amountEurCents);
    expect(await topupView(customer, topup.id)).toMatchObject({ status: 'paid', credited_eur_cents: topup.amountEurCents });
  });

  // Each personality's payments process armed to die on its own provider's entry ids: the stack's own for the
  // sandbox (armed when the stack starts), a replica started for the row with that provider for the others.
  const crashRuns = [
    { name: 'sandbox', personalityOf: async () => sandboxStorm(stack) },
    {
      name: 'nowpayments',
      // NOWPayments names the transaction itself (`<payment_id>@<total>`): the replica exists for this run only.
      personalityOf: async () => nowPaymentsStorm(stack, { PAYMENTS_FAULT_CRASH_BEFORE_CREDIT: 'topup:nowpayments:' }),
    },
    {
      name: 'btcpay',
      personalityOf: () => btcpayStorm(stack, { PAYMENTS_FAULT_CRASH_BEFORE_CREDIT: 'topup:btcpay:paymentscrash-' }),
    },
  ];
  // The sandbox's run keeps the row's name; the providers' name theirs.
  for (const { name, personalityOf } of crashRuns)
    it(`4b. crediting worker SIGKILL between the inbox record and the wallet credit: the sweep credits it once${name === 'sandbox' ? '' : ` (${name})`}`, async () => {
      const personality = await personalityOf();
      const crediting = await personality.process();
      // The inbox hands a record to whichever replica asks first: for a provider's replica to be the one that takes
      // the record it dies on, the stack's own payments stops crediting for the run (it still serves and records).
      let stackCreditingOff = crediting !== stack.service('payments');
      if (stackCreditingOff) await stack.restartServiceWith('payments', { PAYMENTS_CREDITING_ENABLED: 'false' });
      onTestFinished(async () => {
        if (stackCreditingOff) await stack.restartServiceWith('payments', {});
        await personality.close();
      });
      const seed = seedFromEnvironment(name === 'sandbox' ? 'payments crash' : `payments crash ${name}`);
      const startedAtMs = Date.now();
      const customer = await stack.newCustomer('paycrash', { balanceEurCents: 1_000 });
      const topup = await personality.createTopup(customer, 7_000);
      const load = startLoad(stack, loadOptions(seed));
      await sleep(1_000);
      const payment = personality.fullPayment(topup, `paymentscrash-${seed}-${crypto.randomBytes(3).toString('hex')}`);
      const entryId = `topup:${name}:${payment.transactionId}`;
      // The worker records the payment and dies before the credit, a store round trip after the inbox insert: the
      // acknowledgement has usually left by then; if not, the answer is a 503 and the provider retries.
      const crashed = await personality.deliverToProcess(payment.delivery());
      expect([200, 503], JSON.stringify(crashed.body)).toContain(crashed.status);
      if (crashed.status === 200) expect(crashed.body.outcome).toBe('recorded');
      expect(await crediting.exited()).toBe(137);
      expect(await stack.inboxRecord(`${name}:${payment.transactionId}`)).toMatchObject({ transaction_id: payment.transactionId });
      expect(await stack.inboxUnsettled()).toBeGreaterThanOrEqual(1);
      // Nothing is half-visible: no credit yet, and the top-up does not claim one.
      expect(await stack.ledgerEntries({ entry_id: entryId })).toHaveLength(0);
      await crediting.restart();
      const restartedAtMs = Date.now();
      const cleared = creditShown(customer, topup.id, entryId).then((sweptMs) => ({ sweptMs, clearedAtMs: Date.now() }));
      // A provider retry meanwhile finds the record in the inbox (or, once credited, the credit): a duplicate.
      const redelivered = await untilAccepted(() => personality.deliverToProcess(payment.delivery()));
      expect(redelivered.body.outcome).toBe('duplicate');
      const { sweptMs, clearedAtMs } = await cleared;
      const creditedAfterRestartMs = clearedAtMs - restartedAtMs;
      const report = await load.stop();
      if (stackCreditingOff) {
        await stack.restartServiceWith('payments', {});
        stackCreditingOff = false;
      }
      const loadRedelivered = await redeliver(stack, report.undelivered);
      const verdict = await verifyAfterFault(stack, {
        customers: [...loadCustomers, customer],
        batchIds: report.batchIds,
        credits: [
          ...report.acknowledgedCredits,
          ...loadRedelivered,
          { customerId: customer.id, entryId, amountEurCents: topup.amountEurCents },
        ],
        debits: report.acknowledgedDebits,
      });
      const balance = await stack.balance(customer.id);
      recordAndAssert(stack, {
        fault: `4b. crediting worker SIGKILL after the inbox record${name === 'sandbox' ? '' : `, ${name}`} (hook)`,
        seed,
        startedAtMs,
        load: report,
        scenarioRequests: 2 + loadRedelivered.length,
        scenarioErrors: crashed.status === 200 ? {} : { [errorKind(crashed)]: 1 },
        verdict,
        notes: `credited by the sweep ${creditedAfterRestartMs} ms after the restart (unsettled records delivered again ${sweepIntervalMs} ms after their last delivery); redelivery answered ${redelivered.body.outcome}; balance ${balance.balance_eur_cents}`,
      });
      expect(sweptMs).not.toBeNull();
      // The inbox delivers the unsettled record again one interval after the crashed delivery, to the restarted
      // process (or at once if it took longer than that to start), so the credit lands within an interval.
      expect(creditedAfterRestartMs).toBeLessThanOrEqual(sweepIntervalMs + 1_500);
      expect(await stack.ledgerEntries({ entry_id: entryId })).toHaveLength(1);
      expect(balance.balance_eur_cents).toBe(1_000 + topup.amountEurCents);
      expect(await topupView(customer, topup.id)).toMatchObject({ status: 'paid', credited_eur_cents: topup.amountEurCents });
    });

  it('4c. billing SIGKILL between the wallet debit and its record: recovery keeps the paid server, charged once', async () => {
    const seed = seedFromEnvironment('billing crash');
    const startedAtMs = Date.now();
    const customer = await stack.newCustomer('crash', {
      customerId: `${billingCrashCustomerPrefix}${crypto.randomBytes(5).toString('hex')}`,
      balanceEurCents: 5_000,
    });
    const load = startLoad(stack, loadOptions(seed));
    await sleep(1_000);
    const billing = stack.service('billing');
    const crashed = await stack.api(
      customer.fullKey,
      'POST',
      '/v1/servers',
      { plan: 'vps-small', label: 'crash test' },
      { 'idempotency-key': `crash-${seed}` },
    );
    expect(crashed.status, JSON.stringify(crashed.body)).toBe(503);
    expect(await billing.exited()).toBe(137);
    const debits = (await stack.ledgerEntries({ wallet_id: customer.id, kind: 'debit' })).filter((entry) =>
      entry.entry_id.startsWith('server:'),
    );
    expect(debits).toHaveLength(1);
    await billing.restart();
    // The purchase was left pending; billing's recovery finds the charge in the ledger and keeps the server.
    const servers = await eventually(
      async () => {
        const answer = await stack.api(customer.readKey, 'GET', '/v1/servers');
        return answer.status === 200 && answer.body.servers.length > 0
          ? (answer.body.servers as Array<{ id: string; status: string }>)
          : undefined;
      },
      30_000,
      500,
    );
    const report = await load.stop();
    const loadRedelivered = await redeliver(stack, report.undelivered);
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, customer],
      batchIds: report.batchIds,
      credits: [...report.acknowledgedCredits, ...loadRedelivered],
      debits: [
        ...report.acknowledgedDebits,
        { customerId: customer.id, entryIdPrefix: `server:${servers[0]!.id}:`, amountEurCents: 1_500 },
      ],
    });
    const balance = await stack.balance(customer.id);
    recordAndAssert(stack, {
      fault: '4c. billing SIGKILL after wallet debit (hook)',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: 1 + loadRedelivered.length,
      scenarioErrors: { [errorKind(crashed)]: 1 },
      verdict,
      notes: `server ${servers[0]!.status} after recovery; balance ${balance.balance_eur_cents}`,
    });
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({ status: 'active' });
    expect(debits[0]!.entry_id.startsWith(`server:${servers[0]!.id}:`)).toBe(true);
    expect(balance.balance_eur_cents).toBe(5_000 - 1_500);
    expect((await stack.ledgerEntries({ wallet_id: customer.id, kind: 'debit' })).length).toBe(1);
  });

  const storms = [
    { name: 'sandbox', personalityOf: async () => sandboxStorm(stack) },
    { name: 'nowpayments', personalityOf: async () => nowPaymentsStorm(stack) },
    { name: 'btcpay', personalityOf: () => btcpayStorm(stack) },
  ];
  it.each(storms)(
    '5. postback storm ($name): 1000 postbacks, duplicates, reversed order, 100 bad signatures → exactly the right credits, every bad one 401',
    async ({ name, personalityOf }) => {
      const personality = await personalityOf();
      onTestFinished(() => personality.close());
      const seed = seedFromEnvironment(`postback storm ${name}`);
      const startedAtMs = Date.now();
      const random = seededRandom(seed);
      const customers: Customer[] = [];
      for (let index = 0; index < 10; index++) customers.push(await stack.newCustomer(`storm${name.slice(0, 3)}${index}`));
      const topups: TopupForPostbacks[] = [];
      const pool = customers.flatMap((customer) =>
        Array.from({ length: 10 }, () => ({ customer, amount: 1_000 + 100 * Math.floor(random() * 71) })),
      );
      for (let start = 0; start < pool.length; start += 4)
        topups.push(
          ...(await Promise.all(pool.slice(start, start + 4).map(({ customer, amount }) => personality.createTopup(customer, amount)))),
        );

      // Every top-up is paid exactly, in one to three transactions; 900 good deliveries (each status of each payment,
      // then duplicates) and 100 forged ones.
      const plan = personality.plan(topups, seed, random);
      const deliveries = plan.deliveries;
      for (let index = deliveries.length - 1; index > 0; index--) {
        const other = Math.floor(random() * (index + 1));
        [deliveries[index], deliveries[other]] = [deliveries[other]!, deliveries[index]!];
      }
      // Payments whose messages go out in another order than the provider's: a later status or a higher total first.
      const highestRank = new Map<string, number>();
      const outOfOrder = new Set<string>();
      for (const delivery of deliveries) {
        if (delivery.expected !== 'ok') continue;
        if ((highestRank.get(delivery.group) ?? -1) > delivery.rank) outOfOrder.add(delivery.group);
        highestRank.set(delivery.group, Math.max(highestRank.get(delivery.group) ?? -1, delivery.rank));
      }
      const reversed = outOfOrder.size;

      const ledgerBefore = (await stack.ledgerEntries()).length;
      const load = startLoad(stack, loadOptions(seed, { durationMs: 60_000 }));
      const answers: HttpAnswer[] = new Array(deliveries.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < deliveries.length) {
            const index = next++;
            answers[index] = await personality.post(deliveries[index]!);
          }
        }),
      );
      const report = await load.stop();
      const kinds: Record<string, number> = {};
      const wrong: string[] = [];
      const outcomes: Record<string, number> = {};
      for (const [index, answer] of answers.entries()) {
        const delivery = deliveries[index]!;
        if (answer.status !== 200) tally(kinds, errorKind(answer));
        else outcomes[answer.body.outcome] = (outcomes[answer.body.outcome] ?? 0) + 1;
        if (delivery.expected === 'ok' && answer.status !== 200)
          wrong.push(`${delivery.variant} ${delivery.group} answered ${errorKind(answer)}`);
        if (delivery.expected === 'unauthenticated' && !(answer.status === 401 && answer.body?.error?.code === 'unauthenticated'))
          wrong.push(`${delivery.variant} ${delivery.group} answered ${errorKind(answer)}`);
      }
      const loadRedelivered = await redeliver(stack, report.undelivered);
      // Each payment's credits carry its prefix; the balances below check they add up to the cent.
      const verdict = await verifyAfterFault(stack, {
        customers: [...loadCustomers, ...customers],
        batchIds: report.batchIds,
        credits: [
          ...report.acknowledgedCredits,
          ...loadRedelivered,
          ...plan.creditPrefixes.map(({ topup, prefix, amountEurCents }) => ({
            customerId: topup.customerId,
            entryIdPrefix: prefix,
            amountEurCents,
          })),
        ],
        debits: report.acknowledgedDebits,
      });
      // Exactly the right credits: no entry twice, none forged, every top-up paid to the cent, balances the sums.
      const entryPrefix = `topup:${personality.name}:`;
      const stormEntries = (await stack.ledgerEntries({ entry_id: { $regex: `^${entryPrefix}` } })).filter((entry) =>
        new RegExp(plan.transactionPattern).test(entry.entry_id.slice(entryPrefix.length)),
      );
      const perEntry = new Map<string, number>();
      for (const entry of stormEntries) perEntry.set(entry.entry_id, (perEntry.get(entry.entry_id) ?? 0) + 1);
      const forgedEntries = [...perEntry.keys()].filter((entryId) => !plan.genuine.has(entryId.slice(entryPrefix.length)));
      const recordPrefix = `tx:${personality.name}:`;
      const forgedRecords = (
        await stack.mongo
          .db(databaseName(stack.prefix, 'payments'))
          .collection<{ key: string }>('topup_events')
          .find({ key: { $regex: `^${recordPrefix}` } })
          .toArray()
      )
        .map((event) => event.key.slice(recordPrefix.length))
        .filter((transactionId) => new RegExp(plan.transactionPattern).test(transactionId) && !plan.genuine.has(transactionId));
      const balances = await Promise.all(customers.map((customer) => stack.balance(customer.id)));
      const expectedBalances = customers.map((customer) =>
        topups.filter((topup) => topup.customerId === customer.id).reduce((sum, topup) => sum + topup.amountEurCents, 0),
      );
      const views = await Promise.all(
        topups.map((topup) => topupView(customers.find((customer) => customer.id === topup.customerId)!, topup.id)),
      );
      const moneyDifference = balances.reduce(
        (sum, balance, index) => sum + Math.abs(balance.balance_eur_cents + balance.held_eur_cents - expectedBalances[index]!),
        0,
      );
      verdict.moneyLostEurCents += moneyDifference;
      const ledgerAfter = (await stack.ledgerEntries()).length;
      recordAndAssert(stack, {
        fault: `5. postback storm, ${personality.name} (1000: dups, reversed, 10% bad signatures)`,
        seed,
        startedAtMs,
        load: report,
        scenarioRequests: deliveries.length + loadRedelivered.length,
        scenarioErrors: kinds,
        verdict,
        notes: `${plan.reports} payments reported on ${topups.length} top-ups, ${reversed} delivered out of order; outcomes ${JSON.stringify(outcomes)}; ${ledgerAfter - ledgerBefore} ledger entries written during the storm (load included)`,
      });
      expect(wrong).toEqual([]);
      expect(kinds).toEqual({ '401 unauthenticated': 100 });
      expect(forgedEntries).toEqual([]);
      expect(forgedRecords).toEqual([]);
      expect([...perEntry.values()].every((count) => count === 1)).toBe(true);
      // A sandbox transaction is one entry each; NOWPayments' totals credit their increases, so as many as arrived rising.
      if (personality.name === 'sandbox') expect(perEntry.size).toBe(plan.reports);
      else expect(perEntry.size).toBeGreaterThanOrEqual(topups.length);
      expect(views.map((view) => [view.status, view.credited_eur_cents])).toEqual(topups.map((topup) => ['paid', topup.amountEurCents]));
      expect(balances.map((balance) => balance.balance_eur_cents)).toEqual(expectedBalances);
      expect(reversed).toBeGreaterThan(0);
    },
  );

  it('6. money races: seeded concurrent credits and debits on one wallet across two wallet replicas', async () => {
    const seed = seedFromEnvironment('money races');
    const startedAtMs = Date.now();
    const random = seededRandom(seed);
    const customer = await stack.newCustomer('races');
    const replica = await stack.startReplica('wallet', 'wallet-replica');
    const replicaClient = createUnaryClient<any>('wallet/v1/wallet.proto', 'mtx.wallet.v1.WalletService', replica.address, 10_000);
    interface Operation {
      entryId: string;
      kind: 'Credit' | 'Debit';
      amountEurCents: number;
      replica: 0 | 1;
    }
    // The operations are a function of the seed alone: the same seed replays the same race.
    const operations: Operation[] = [];
    for (let index = 0; index < 400; index++) {
      if (index > 10 && random() < 0.1) {
        const earlier = operations[Math.floor(random() * operations.length)]!;
        operations.push({ ...earlier, replica: random() < 0.5 ? 0 : 1 });
        continue;
      }
      // Credits outweigh debits in the first half (the balance reaches the cap and money is held) and debits
      // outweigh credits in the second (held money moves in, then the balance runs dry and debits are refused).
      const kind = random() < (index < 200 ? 0.6 : 0.35) ? 'Credit' : 'Debit';
      const amountEurCents =
        kind === 'Credit' ? (random() < 0.05 ? 60_000 : 1 + Math.floor(random() * 20_000)) : 1 + Math.floor(random() * 25_000);
      operations.push({ entryId: `race-${seed}-${index}`, kind, amountEurCents, replica: random() < 0.5 ? 0 : 1 });
    }
    const digest = crypto.createHash('sha256').update(JSON.stringify(operations)).digest('hex').slice(0, 12);

    const load = startLoad(stack, loadOptions(seed, { durationMs: 60_000 }));
    const violations: string[] = [];
    const outcomes: Array<{
      operation: Operation;
      result?: { applied: boolean; replay: boolean; balance_eur_cents: number; held_eur_cents: number };
      error?: string;
    }> = [];
    let reading = true;
    const reads: HttpAnswer[] = [];
    const reader = (async () => {
      while (reading) {
        const answer = await stack.api(customer.readKey, 'GET', '/v1/wallet');
        reads.push(answer);
        if (answer.status === 200 && !(answer.body.balance_eur_cents >= 0 && answer.body.balance_eur_cents <= walletCapEurCents))
          violations.push(`GET /v1/wallet answered ${answer.body.balance_eur_cents}`);
        await sleep(20);
      }
    })();
    // Server purchases through the public API debit the same wallet at the same time.
    const purchases: HttpAnswer[] = [];
    const purchaser = (async () => {
      for (let index = 0; index < 12; index++) {
        purchases.push(
          await stack.api(
            customer.fullKey,
            'POST',
            '/v1/servers',
            { plan: 'vps-small', label: `race ${index}` },
            { 'idempotency-key': `race-${seed}-${index}` },
          ),
        );
      }
    })();
    /** One movement on the replica the operation names; every answer is checked against the wallet's bounds. */
    const perform = async (operation: Operation, reference: string) => {
      const client = operation.replica === 0 ? stack.wallet : replicaClient;
      try {
        const result = await client.call(operation.kind, {
          customer_id: customer.id,
          entry_id: operation.entryId,
          amount_eur_cents: operation.amountEurCents,
          reason: 'adjustment',
          reference,
        });
        outcomes.push({ operation, result });
        if (!(result.balance_eur_cents >= 0 && result.balance_eur_cents <= walletCapEurCents && result.held_eur_cents >= 0))
          violations.push(`${operation.entryId} answered balance ${result.balance_eur_cents} held ${result.held_eur_cents}`);
      } catch (error) {
        outcomes.push({ operation, error: (error as { code?: string }).code ?? String(error) });
      }
    };
    const raceStartedMs = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < operations.length) {
          await perform(operations[next++]!, 'race');
        }
      }),
    );
    // Both edges, whatever the seed: credits of a whole cap racing each other (money must be held) and debits
    // larger than any balance the cap allows (each must be refused), on both replicas at once.
    const edgeOperations: Operation[] = [
      ...Array.from(
        { length: 3 },
        (_, index): Operation => ({
          kind: 'Credit',
          entryId: `race-edge-credit-${seed}-${index}`,
          amountEurCents: walletCapEurCents,
          replica: (index % 2) as 0 | 1,
        }),
      ),
      ...Array.from(
        { length: 2 },
        (_, index): Operation => ({
          kind: 'Debit',
          entryId: `race-edge-debit-${seed}-${index}`,
          amountEurCents: walletCapEurCents + 1,
          replica: (index % 2) as 0 | 1,
        }),
      ),
    ];
    await Promise.all(edgeOperations.map((operation) => perform(operation, 'race-edge')));
    const raceMs = Date.now() - raceStartedMs;
    await purchaser;
    reading = false;
    await reader;
    const report = await load.stop();
    replicaClient.close();
    await replica.stop();

    const entries = (await stack.ledgerEntries({ wallet_id: customer.id })).sort((left, right) => left.seq - right.seq);
    const byEntryId = new Map<string, number>();
    for (const entry of entries) byEntryId.set(entry.entry_id, (byEntryId.get(entry.entry_id) ?? 0) + 1);
    const kinds: Record<string, number> = {};
    const wrong: string[] = [];
    for (const outcome of outcomes) {
      if (outcome.error) {
        tally(kinds, `grpc ${outcome.error}`);
        if (!(outcome.error === 'insufficient_balance' && outcome.operation.kind === 'Debit'))
          wrong.push(`${outcome.operation.entryId}: ${outcome.error}`);
      } else if (!byEntryId.has(outcome.operation.entryId)) wrong.push(`${outcome.operation.entryId} acknowledged but not in the ledger`);
    }
    // A movement every attempt of which was refused left nothing behind.
    const attempts = new Map<string, typeof outcomes>();
    for (const outcome of outcomes) attempts.set(outcome.operation.entryId, [...(attempts.get(outcome.operation.entryId) ?? []), outcome]);
    for (const [entryId, list] of attempts)
      if (list.every((outcome) => outcome.error) && byEntryId.has(entryId)) wrong.push(`${entryId} was refused but is in the ledger`);
    const purchased = purchases.filter((answer) => answer.status === 201).length;
    for (const answer of purchases) if (answer.status !== 201) tally(kinds, errorKind(answer));
    const serverCharges = entries.filter((entry) => entry.entry_id.startsWith('server:')).length;
    // Conservation: what the answers say moved equals what the wallet holds.
    const applied = new Map<string, Operation>();
    for (const outcome of outcomes) if (outcome.result) applied.set(outcome.operation.entryId, outcome.operation);
    const expectedTotal =
      [...applied.values()].reduce(
        (sum, operation) => sum + (operation.kind === 'Credit' ? operation.amountEurCents : -operation.amountEurCents),
        0,
      ) -
      1_500 * purchased;
    const final = await stack.balance(customer.id);
    const overCap = entries.filter(
      (entry) => entry.balance_after_eur_cents < 0 || entry.balance_after_eur_cents > walletCapEurCents || entry.held_after_eur_cents < 0,
    );
    const atCap = entries.filter((entry) => entry.balance_after_eur_cents === walletCapEurCents && entry.held_after_eur_cents > 0).length;
    const refused = outcomes.filter((outcome) => outcome.error === 'insufficient_balance').length;
    const loadRedelivered = await redeliver(stack, report.undelivered);
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, customer],
      batchIds: report.batchIds,
      credits: [...report.acknowledgedCredits, ...loadRedelivered],
      debits: report.acknowledgedDebits,
    });
    verdict.moneyLostEurCents += Math.abs(final.balance_eur_cents + final.held_eur_cents - expectedTotal);
    recordAndAssert(stack, {
      fault: '6. money races (400 seeded movements, 2 wallet replicas)',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: outcomes.length + reads.length + purchases.length + loadRedelivered.length,
      scenarioErrors: kinds,
      verdict,
      notes: `operations digest ${digest}, raced in ${raceMs} ms; ${applied.size} distinct movements applied, ${refused} debits refused, ${atCap} entries at the cap with money held, ${purchased} servers bought; final balance ${final.balance_eur_cents} held ${final.held_eur_cents}`,
    });
    expect(wrong).toEqual([]);
    expect(violations).toEqual([]);
    expect(overCap).toEqual([]);
    expect([...byEntryId.values()].every((count) => count === 1)).toBe(true);
    expect(serverCharges).toBe(purchased);
    expect(final.balance_eur_cents + final.held_eur_cents).toBe(expectedTotal);
    expect(final.sequence).toBe(entries.length);
    // The race reached both edges: the cap (money held) and an empty balance (debits refused).
    expect(atCap).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
