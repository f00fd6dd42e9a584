/**
 * Faults of processes and infrastructure under load: connectors killed mid-batch, NATS and the store restarted,
 * concurrent duplicates of one Idempotency-Key, and SIGTERM of the gateway and of backends with requests in
 * flight. After each: the ledger audit, every acknowledged movement in the ledger, and the execution invariants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { redeliver, startLoad, type LoadOptions, type Movement, type UndeliveredPostback } from './load';
import {
  brokerKeyOfLeg,
  brokerKeyOfRecord,
  errorKind,
  FaultStack,
  sleep,
  type Customer,
  type HttpAnswer,
  type TopupForPostbacks,
  type TradingAccount,
} from './stack';
import { printSummary, seedFromEnvironment } from './summary';
import { recordAndAssert, tally, verifyAfterFault } from './verify';

let stack: FaultStack;
let loadCustomers: Customer[];
let loadTopups: TopupForPostbacks[];

beforeAll(async () => {
  stack = await FaultStack.start({ label: 'processes' });
  ({ customers: loadCustomers, topups: loadTopups } = await stack.loadCustomers(['loada', 'loadb']));
}, 240_000);

afterAll(async () => {
  if (stack?.serviceErrors.length)
    process.stdout.write(`[faults/processes] service error lines (see ${stack.logFile}):\n${stack.serviceErrors.slice(-15).join('\n')}\n`);
  await stack?.close();
  printSummary();
});

function loadOptions(seed: number, overrides: Partial<LoadOptions> = {}): LoadOptions {
  return {
    customers: loadCustomers,
    seed,
    concurrency: 3,
    durationMs: 12_000,
    requestsMax: 1_500,
    pauseMs: 15,
    topups: loadTopups,
    mix: { wallet: 3, orders: 3, credit: 2, debit: 1, subscription: 1 },
    ...overrides,
  };
}

const accountPath = (account: TradingAccount) => `/control/accounts/${account.server}/${account.login}`;

/** The trade requests the broker received; `leg` names the leg each was sent for (brokerKeyOfLeg of its client id). */
async function brokerRequests(account: TradingAccount): Promise<Array<{ leg: string; state: string }>> {
  const { requests } = await stack.control<{ requests: Array<{ clientId: string; state: string }> }>(`${accountPath(account)}/requests`);
  return requests.map((record) => ({ leg: brokerKeyOfRecord(record.clientId), state: record.state }));
}

function legsFor(customer: Customer, perAccount: number): Array<Record<string, unknown>> {
  return customer.accounts.flatMap((account) =>
    Array.from({ length: perAccount }, (_, index) => ({
      account_id: account.id,
      symbol: account.symbol,
      operation: index % 2 === 0 ? 'buy' : 'sell',
      volume: 0.1,
    })),
  );
}

describe('fault suite: processes and infrastructure', () => {
  it('1. connector SIGKILL mid-batch on both platforms: legs unknown, settled by reconciliation, nothing executed twice', async () => {
    const seed = seedFromEnvironment('connector SIGKILL');
    const startedAtMs = Date.now();
    const victim = await stack.newCustomer('victim', { accountsPerServer: 1 });
    // The broker holds every victim order for 900 ms. An EA carries out one request at a time
    // (docs/terminal-bridge.md), so both connectors die with each account's first leg at the broker and its
    // second read by the EA and waiting behind it.
    for (const account of victim.accounts) await stack.control(`${accountPath(account)}/faults`, 'PUT', { delay_ms: 900 });
    const load = startLoad(stack, loadOptions(seed));
    await sleep(1_000);
    const legs = legsFor(victim, 2);
    const pending = stack.api(victim.fullKey, 'POST', '/v1/orders', { orders: legs });
    await eventually(
      async () => {
        let processing = 0;
        for (const account of victim.accounts)
          processing += (await brokerRequests(account)).filter((record) => record.state === 'processing').length;
        return processing >= victim.accounts.length;
      },
      5_000,
      20,
    );
    await Promise.all([stack.service('connector-mt4').kill('SIGKILL'), stack.service('connector-mt5').kill('SIGKILL')]);
    const answer = await pending;
    expect(answer.status).toBe(200);
    const statuses = (answer.body.results as Array<{ status: string; retcode?: number }>).map((result) => result.status);
    // Sent, never acknowledged: it may have executed, so `unknown`, never `rejected`.
    expect(statuses).toEqual(Array(legs.length).fill('unknown'));
    expect(answer.body.summary.unknown).toBe(legs.length);
    await sleep(1_500);
    await Promise.all([stack.service('connector-mt4').restart(), stack.service('connector-mt5').restart()]);
    for (const account of victim.accounts) await stack.control(`${accountPath(account)}/faults`, 'DELETE');
    const report = await load.stop();
    const batchId = answer.body.batch_id as string;
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, victim],
      batchIds: [...report.batchIds, batchId],
      credits: report.acknowledgedCredits,
      debits: report.acknowledgedDebits,
    });
    const settled = await stack.api(victim.readKey, 'GET', `/v1/orders/batches/${batchId}`);
    recordAndAssert(stack, {
      fault: '1. connector-mt4 + connector-mt5 SIGKILL mid-batch',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: 2,
      scenarioErrors: { 'leg unknown (victim batch)': statuses.length },
      verdict,
      notes: `victim batch settled as ${JSON.stringify(settled.body.summary)}`,
    });
    // The broker executed every held order once and reconciliation found each; the legs the EAs still held
    // were forgotten with their connections (never carried out), so reconciliation proved them not executed.
    expect(settled.body.settled).toBe(true);
    expect(settled.body.summary).toMatchObject({ requested: legs.length, filled: victim.accounts.length, unknown: 0 });
    for (const account of victim.accounts) {
      const own = (settled.body.results as Array<{ status: string; message: string }>).filter(
        (_, index) => legs[index]!.account_id === account.id,
      );
      expect(own.map((leg) => leg.status).sort()).toEqual(['filled', 'rejected']);
      expect(own.find((leg) => leg.status === 'rejected')!.message).toMatch(/^not executed/);
      expect(await brokerRequests(account)).toHaveLength(1);
    }
  });

  it('7. idempotency under concurrency: 20 parallel POST /v1/orders with one key and one body send each leg once', async () => {
    const seed = seedFromEnvironment('idempotency race');
    const startedAtMs = Date.now();
    const customer = await stack.newCustomer('idem', { accountsPerServer: 1 });
    for (const account of customer.accounts) await stack.control(`${accountPath(account)}/faults`, 'PUT', { delay_ms: 300 });
    const load = startLoad(stack, loadOptions(seed, { durationMs: 6_000 }));
    await sleep(500);
    const body = { orders: legsFor(customer, 2) };
    const key = `idem-${seed}-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => stack.api(customer.fullKey, 'POST', '/v1/orders', body, { 'idempotency-key': key })),
    );
    for (const account of customer.accounts) await stack.control(`${accountPath(account)}/faults`, 'DELETE');
    const replay = await stack.api(customer.fullKey, 'POST', '/v1/orders', body, { 'idempotency-key': key });
    await sleep(1_500);
    const report = await load.stop();
    const kinds: Record<string, number> = {};
    for (const answer of answers) if (answer.status !== 200) tally(kinds, errorKind(answer));
    const originals = answers.filter((answer) => answer.status === 200 && answer.body.idempotent_replay === false);
    const batchIds = new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.body.batch_id as string));
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, customer],
      batchIds: [...report.batchIds, ...batchIds],
      credits: report.acknowledgedCredits,
      debits: report.acknowledgedDebits,
    });
    // Every request the broker received on these accounts, by client id: one batch, each leg once.
    const received: string[] = [];
    for (const account of customer.accounts) received.push(...(await brokerRequests(account)).map((record) => record.leg));
    recordAndAssert(stack, {
      fault: '7. 20 parallel POST /v1/orders, one Idempotency-Key',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: answers.length + 1,
      scenarioErrors: kinds,
      verdict,
      notes: `${originals.length} original, ${answers.length - originals.length} refused or replayed; broker received ${received.length} requests for ${body.orders.length} legs`,
    });
    expect(originals).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body.batch_id).toBe(originals[0]!.body.batch_id);
      else expect(errorKind(answer)).toBe('409 idempotency_key_in_progress');
    }
    expect(batchIds.size).toBe(1);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ batch_id: originals[0]!.body.batch_id, idempotent_replay: true });
    expect(received.sort()).toEqual(body.orders.map((_, index) => brokerKeyOfLeg(`${originals[0]!.body.batch_id}-${index}`)).sort());
  });

  it('7b. execution stalled past the gateway deadline with the legs at the broker: a retry with the same key executes nothing twice', async () => {
    const seed = seedFromEnvironment('stalled execution retry');
    const startedAtMs = Date.now();
    const customer = await stack.newCustomer('stall', { accountsPerServer: 1 });
    for (const account of customer.accounts) await stack.control(`${accountPath(account)}/faults`, 'PUT', { delay_ms: 800 });
    const load = startLoad(stack, loadOptions(seed, { durationMs: 20_000 }));
    await sleep(500);
    const body = { orders: legsFor(customer, 1) };
    const key = `stall-${seed}-${Date.now()}`;
    const first = stack.api(customer.fullKey, 'POST', '/v1/orders', body, { 'idempotency-key': key });
    await eventually(async () => (await Promise.all(customer.accounts.map(brokerRequests))).flat().length >= body.orders.length, 5_000, 20);
    // A paused process (a long GC pause, a throttled container): the gateway's deadline passes with the batch sent.
    const execution = stack.service('execution');
    process.kill(execution.pid!, 'SIGSTOP');
    let stalledAnswer: HttpAnswer;
    try {
      stalledAnswer = await first;
    } finally {
      process.kill(execution.pid!, 'SIGCONT');
    }
    const kinds: Record<string, number> = {};
    tally(kinds, errorKind(stalledAnswer));
    // The client does what a 503 invites: it retries, with the same key and body, until it gets an answer.
    let retries = 0;
    const retried = await eventually(
      async () => {
        retries += 1;
        const answer = await stack.api(customer.fullKey, 'POST', '/v1/orders', body, { 'idempotency-key': key });
        if (answer.status !== 200) tally(kinds, errorKind(answer));
        return answer.status === 200 ? answer : undefined;
      },
      30_000,
      300,
    );
    for (const account of customer.accounts) await stack.control(`${accountPath(account)}/faults`, 'DELETE');
    const report = await load.stop();
    const received = (await Promise.all(customer.accounts.map(brokerRequests))).flat().map((record) => record.leg);
    const batchId = retried.body.batch_id as string;
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, customer],
      batchIds: [...report.batchIds, batchId],
      credits: report.acknowledgedCredits,
      debits: report.acknowledgedDebits,
    });
    const deals = (await Promise.all(customer.accounts.map((account) => stack.deals(account)))).flat();
    recordAndAssert(stack, {
      fault: '7b. execution SIGSTOP past the gateway deadline, client retries the key',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: 1 + retries,
      scenarioErrors: kinds,
      verdict,
      notes: `first answer ${errorKind(stalledAnswer)}; ${retries} retries; broker received ${received.length} requests for ${body.orders.length} legs`,
    });
    expect(stalledAnswer.status).toBe(503);
    expect(received.sort()).toEqual(body.orders.map((_, index) => brokerKeyOfLeg(`${batchId}-${index}`)).sort());
    // The retry answers with what the first attempt did at the broker.
    for (const [index, leg] of (retried.body.results as Array<{ status: string; order: number }>).entries()) {
      expect(leg.status).toBe('filled');
      expect(
        deals.filter((deal) => brokerKeyOfRecord(deal.clientId) === brokerKeyOfLeg(`${batchId}-${index}`)).map((deal) => deal.order),
      ).toEqual([leg.order]);
    }
  });

  it('7c. an Idempotency-Key past its lifetime: the request before expiry sends nothing, the one after sends exactly once more', async () => {
    const seed = seedFromEnvironment('idempotency key expiry');
    const startedAtMs = Date.now();
    // A gateway replica whose keys live 4 s instead of 15 min, on the same store and backends as the others.
    const keyLifetimeMs = 4_000;
    const gateway = await stack.startReplica('gateway', 'gateway-short-keys', { IDEMPOTENCY_TTL_MS: String(keyLifetimeMs) });
    const customer = await stack.newCustomer('expiry', { accountsPerServer: 1 });
    const load = startLoad(stack, loadOptions(seed, { durationMs: 8_000 }));
    const body = { orders: legsFor(customer, 1) };
    const key = `expiry-${seed}-${Date.now()}`;
    const post = () =>
      stack.request('POST', `${gateway.address}/v1/orders`, { key: customer.fullKey, body, headers: { 'idempotency-key': key } });
    const received = async () => (await Promise.all(customer.accounts.map(brokerRequests))).flat().map((record) => record.leg);
    const first = await post();
    const afterFirst = await received();
    const before = await post();
    const afterBefore = await received();
    await sleep(keyLifetimeMs + 250);
    const after = await post();
    const afterExpiry = await received();
    const report = await load.stop();
    await stack.stopReplica(gateway.name);
    const kinds: Record<string, number> = {};
    for (const answer of [first, before, after]) if (answer.status !== 200) tally(kinds, errorKind(answer));
    const batchIds = [first, after].filter((answer) => answer.status === 200).map((answer) => answer.body.batch_id as string);
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, customer],
      batchIds: [...report.batchIds, ...batchIds],
      credits: report.acknowledgedCredits,
      debits: report.acknowledgedDebits,
    });
    recordAndAssert(stack, {
      fault: '7c. Idempotency-Key reused before and after its lifetime',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: 3,
      scenarioErrors: kinds,
      verdict,
      notes: `broker received ${afterFirst.length}, then ${afterBefore.length - afterFirst.length} for the request before expiry and ${afterExpiry.length - afterBefore.length} for the one after, for ${body.orders.length} legs`,
    });
    expect([first.status, before.status, after.status]).toEqual([200, 200, 200]);
    const legIds = (batchId: string) => body.orders.map((_, index) => brokerKeyOfLeg(`${batchId}-${index}`));
    expect(afterFirst.sort()).toEqual(legIds(first.body.batch_id).sort());
    expect(before.body).toEqual({ ...first.body, idempotent_replay: true });
    expect(afterBefore.sort()).toEqual(afterFirst.sort());
    expect(after.body.idempotent_replay).toBe(false);
    expect(after.body.batch_id).not.toBe(first.body.batch_id);
    expect(afterExpiry.sort()).toEqual([...legIds(first.body.batch_id), ...legIds(after.body.batch_id)].sort());
    expect((after.body.results as Array<{ status: string }>).map((leg) => leg.status)).toEqual(body.orders.map(() => 'filled'));
  });

  it('2. NATS server restart under load: same processes reconnect, outage batches unavailable/unknown never 500, working again within 5 s', async () => {
    const seed = seedFromEnvironment('NATS restart');
    const startedAtMs = Date.now();
    const probe = await stack.newCustomer('natsprobe', { accountsPerServer: 1 });
    const probeLegs = probe.accounts.map((account) => ({ account_id: account.id, symbol: account.symbol, operation: 'buy', volume: 0.1 }));
    const pidsBefore = stack.pids();
    const load = startLoad(stack, loadOptions(seed, { durationMs: 16_000 }));
    await sleep(1_500);
    const probes: Array<{ sentAtMs: number; phase: 'outage' | 'after'; answer: HttpAnswer }> = [];
    const inFlight: Array<Promise<void>> = [];
    let phase: 'outage' | 'after' = 'outage';
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const sentAtMs = Date.now();
        const currentPhase = phase;
        inFlight.push(
          stack
            .api(probe.fullKey, 'POST', '/v1/orders', { orders: probeLegs })
            .then((answer) => void probes.push({ sentAtMs, phase: currentPhase, answer })),
        );
        await sleep(200);
      }
    })();
    await stack.nats.stop();
    await sleep(2_500);
    await stack.nats.start();
    const restartedAtMs = Date.now();
    phase = 'after';
    await sleep(7_000);
    probing = false;
    await prober;
    await Promise.all(inFlight);
    const report = await load.stop();
    const pidsAfter = stack.pids();

    const kinds: Record<string, number> = {};
    const outageLegStatuses = new Set<string>();
    for (const { answer, phase: probePhase } of probes) {
      if (answer.status !== 200) tally(kinds, errorKind(answer));
      else if (probePhase === 'outage')
        for (const leg of answer.body.results as Array<{ status: string }>) outageLegStatuses.add(leg.status);
    }
    const fullyFilled = (answer: HttpAnswer) =>
      answer.status === 200 && (answer.body.results as Array<{ status: string }>).every((leg) => leg.status === 'filled');
    const after = probes.filter((entry) => entry.phase === 'after').sort((left, right) => left.sentAtMs - right.sentAtMs);
    const firstGood = after.find((entry) => fullyFilled(entry.answer));
    const recoveryMs = firstGood ? firstGood.sentAtMs - restartedAtMs : Number.POSITIVE_INFINITY;
    // Everything works again within 5 s: every probe sent from then on fills every leg.
    const failedAfterRecovery = after.filter((entry) => entry.sentAtMs >= restartedAtMs + 5_000 && !fullyFilled(entry.answer));
    const batchIds = probes.filter((entry) => entry.answer.status === 200).map((entry) => entry.answer.body.batch_id as string);
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, probe],
      batchIds: [...report.batchIds, ...batchIds],
      credits: report.acknowledgedCredits,
      debits: report.acknowledgedDebits,
    });
    recordAndAssert(stack, {
      fault: '2. NATS server restart (2.5 s outage)',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: probes.length,
      scenarioErrors: kinds,
      verdict,
      notes: `outage leg statuses ${[...outageLegStatuses].join(',') || '-'}`,
      recoveryMs,
    });
    expect(pidsAfter).toEqual(pidsBefore);
    for (const name of Object.keys(pidsBefore)) expect(stack.service(name).running(), name).toBe(true);
    for (const { answer } of probes) expect([200, 503], errorKind(answer)).toContain(answer.status);
    for (const status of outageLegStatuses) expect(['unavailable', 'unknown', 'filled']).toContain(status);
    expect(outageLegStatuses.has('unavailable') || outageLegStatuses.has('unknown') || kinds['503 unavailable'] !== undefined).toBe(true);
    expect(recoveryMs).toBeLessThanOrEqual(5_000);
    expect(failedAfterRecovery.map((entry) => entry.answer.body)).toEqual([]);
  });

  it('3. store (FerretDB) restart under load: no acknowledged credit or debit lost, /readyz false then true, 503 not 500', async () => {
    // The gateway's readiness by check, on its operations listener (METRICS_PORT).
    const readyzUrl = `${stack.service('gateway').metricsUrl}/readyz`;
    const seed = seedFromEnvironment('store restart');
    const startedAtMs = Date.now();
    const readiness: Array<{ atMs: number; status: number }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await stack.request('GET', readyzUrl, { timeoutMs: 3_000 });
        readiness.push({ atMs: Date.now(), status: answer.status });
        await sleep(150);
      }
    })();
    // More workers than elsewhere: each request in the outage waits for the store, so more are caught in it.
    const load = startLoad(
      stack,
      loadOptions(seed, { concurrency: 6, durationMs: 20_000, mix: { wallet: 3, orders: 2, credit: 3, debit: 2, subscription: 1 } }),
    );
    await sleep(2_000);
    const stoppedAtMs = Date.now();
    // A crash, not a clean stop: what was acknowledged must be durable already.
    await stack.store.kill();
    await sleep(3_000);
    await stack.store.start();
    const restartedAtMs = Date.now();
    await eventually(async () => (await stack.request('GET', readyzUrl)).status === 200, 20_000, 200);
    await sleep(2_000);
    const report = await load.stop();
    polling = false;
    await poller;
    // The provider retries what it could not deliver; afterwards every payment is in the ledger.
    const redelivered = await redeliver(stack, report.undelivered);
    const credits: Movement[] = [...report.acknowledgedCredits, ...redelivered];
    const verdict = await verifyAfterFault(stack, {
      customers: loadCustomers,
      batchIds: report.batchIds,
      credits,
      debits: report.acknowledgedDebits,
    });
    const duringOutage = report.samples.filter(
      (sample) => sample.atMs + startedAtMs >= stoppedAtMs && sample.atMs + startedAtMs <= restartedAtMs,
    );
    recordAndAssert(stack, {
      fault: '3. store (FerretDB) SIGKILL + restart (3 s outage)',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: readiness.length + redelivered.length,
      scenarioErrors: {},
      verdict,
      notes: `${report.acknowledgedCredits.length} credits and ${report.acknowledgedDebits.length} debits acknowledged, ${redelivered.length} postbacks redelivered; /readyz ${readiness
        .map((entry) => entry.status)
        .filter((status, index, all) => index === 0 || all[index - 1] !== status)
        .join('→')}`,
    });
    const sequence = readiness.map((entry) => entry.status === 200);
    const firstFalse = sequence.indexOf(false);
    expect(sequence[0]).toBe(true);
    expect(firstFalse).toBeGreaterThan(0);
    expect(sequence.slice(firstFalse).includes(true)).toBe(true);
    expect(sequence[sequence.length - 1]).toBe(true);
    expect(readiness.every((entry) => entry.status === 200 || entry.status === 503)).toBe(true);
    // Requests during the outage failed as retriable 503s (or still succeeded), never as a 500 or a dropped connection.
    for (const sample of duringOutage) if (!sample.ok) expect(sample.kind, `${sample.operation} during the outage`).toBe('503 unavailable');
    expect(duringOutage.some((sample) => !sample.ok)).toBe(true);
  });

  it('8. SIGTERM with requests in flight (gateway, wallet, execution): each completes or fails retriably, nothing half-written', async () => {
    const seed = seedFromEnvironment('SIGTERM in flight');
    const startedAtMs = Date.now();
    const customer = await stack.newCustomer('sigterm', { accountsPerServer: 1, balanceEurCents: 20_000 });
    const topup = await stack.createTopup(customer, 40_000);
    const load = startLoad(stack, loadOptions(seed, { durationMs: 40_000, requestsMax: 3_000 }));
    const kinds: Record<string, number> = {};
    const credits: Movement[] = [];
    const debits: Movement[] = [];
    const batchIds: string[] = [];
    const retriable = (answer: HttpAnswer) =>
      answer.status === 503 ||
      (answer.status === 409 && answer.body?.error?.code === 'idempotency_key_in_progress') ||
      ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(answer.networkError ?? '');
    let sequence = 0;
    let requests = 0;
    // Collected and asserted at the end, so a failure never leaves a stopped service behind for the next test.
    const notRetriable: string[] = [];
    const exitCodes: Record<string, number | null> = {};

    /** A burst of every kind of write plus reads, fired together; answers sorted into done and retriable. */
    const burst = async (label: string) => {
      const legs = legsFor(customer, 1);
      const postbacks = Array.from({ length: 6 }, () => {
        const transactionId = `sigterm-${label}-${seed}-${++sequence}`;
        return {
          entryId: `topup:sandbox:${transactionId}`,
          body: stack.postbackBody(topup, transactionId, topup.depositUnits / 40n, 'confirmed'),
          amountEurCents: Math.floor(topup.amountEurCents / 40),
        };
      });
      const calls: Array<Promise<{ kind: string; answer: HttpAnswer; entryId?: string }>> = [
        ...Array.from({ length: 3 }, () =>
          stack.api(customer.fullKey, 'POST', '/v1/orders', { orders: legs }).then((answer) => ({ kind: 'orders', answer })),
        ),
        ...postbacks.map((postback) =>
          stack.postback(postback.body).then((answer) => ({ kind: 'credit', answer, entryId: postback.entryId })),
        ),
        ...Array.from({ length: 2 }, () =>
          stack
            .api(customer.fullKey, 'POST', '/v1/servers', { plan: 'vps-small', label: 'sigterm' })
            .then((answer) => ({ kind: 'debit', answer })),
        ),
        ...Array.from({ length: 4 }, () => stack.api(customer.readKey, 'GET', '/v1/wallet').then((answer) => ({ kind: 'wallet', answer }))),
      ];
      return { calls, postbacks };
    };
    const settle = async (
      results: Array<{ kind: string; answer: HttpAnswer; entryId?: string }>,
      undelivered: UndeliveredPostback[],
      postbacks: Array<{ entryId: string; body: string; amountEurCents: number }>,
    ) => {
      for (const result of results) {
        requests += 1;
        const { answer } = result;
        const done = answer.status >= 200 && answer.status < 300;
        if (!done && answer.status !== 402) {
          tally(kinds, errorKind(answer));
          if (!retriable(answer)) notRetriable.push(`${result.kind} answered ${errorKind(answer)} ${JSON.stringify(answer.body)}`);
        }
        if (result.kind === 'orders' && done) batchIds.push(answer.body.batch_id);
        if (result.kind === 'debit' && done)
          debits.push({ customerId: customer.id, entryIdPrefix: `server:${answer.body.id}:`, amountEurCents: 1_500 });
        if (result.kind === 'credit') {
          const postback = postbacks.find((candidate) => candidate.entryId === result.entryId)!;
          if (done) credits.push({ customerId: customer.id, entryId: postback.entryId, amountEurCents: postback.amountEurCents });
          else
            undelivered.push({
              body: postback.body,
              entryId: postback.entryId,
              customerId: customer.id,
              amountEurCents: postback.amountEurCents,
            });
        }
      }
    };

    // The gateway: in-flight requests finish; new connections are refused while it is down. Each account's EA
    // carries out a burst's three legs one after another (docs/terminal-bridge.md), so the hold is short enough
    // for the third to start within its deadline: one it refused `expired` would never reach the broker.
    for (const account of customer.accounts) await stack.control(`${accountPath(account)}/faults`, 'PUT', { delay_ms: 300 });
    const undelivered: UndeliveredPostback[] = [];
    const brokerBefore = (await Promise.all(customer.accounts.map(brokerRequests))).flat().length;
    {
      const { calls, postbacks } = await burst('gateway');
      await sleep(150);
      const gateway = stack.service('gateway');
      const stopping = gateway.stop(15_000);
      await sleep(50);
      const late = await burst('gateway-late');
      await stopping;
      exitCodes.gateway = await gateway.exited();
      await gateway.restart();
      await settle(await Promise.all([...calls, ...late.calls]), undelivered, [...postbacks, ...late.postbacks]);
    }
    // Every order the broker received belongs to a batch the client got an answer for.
    const brokerAfterGateway = (await Promise.all(customer.accounts.map(brokerRequests))).flat().length;
    expect(brokerAfterGateway - brokerBefore).toBe(batchIds.length * customer.accounts.length);

    // The wallet: movements in flight (through the API and straight over gRPC) finish or fail with unavailable.
    {
      const { calls, postbacks } = await burst('wallet');
      const direct = Array.from({ length: 10 }, (_, index) => {
        const entryId = `sigterm-direct-${seed}-${index}-${Date.now()}`;
        const kind = index % 3 === 0 ? 'Debit' : 'Credit';
        return {
          entryId,
          kind,
          amountEurCents: 100 + index,
          call: stack.wallet
            .call(kind, {
              customer_id: customer.id,
              entry_id: entryId,
              amount_eur_cents: 100 + index,
              reason: 'adjustment',
              reference: 'sigterm',
            })
            .then(
              () => 'ok',
              (error: { code?: string }) => error.code ?? 'error',
            ),
        };
      });
      await sleep(120);
      const wallet = stack.service('wallet');
      await wallet.stop(15_000);
      exitCodes.wallet = await wallet.exited();
      await wallet.restart();
      await settle(await Promise.all(calls), undelivered, postbacks);
      const outcomes = await Promise.all(direct.map((movement) => movement.call));
      for (const outcome of outcomes) {
        requests += 1;
        if (outcome !== 'ok') tally(kinds, `grpc ${outcome}`);
        if (!['ok', 'unavailable', 'insufficient_balance'].includes(outcome)) notRetriable.push(`wallet gRPC answered ${outcome}`);
      }
      // Retried with the same entry ids, each movement lands exactly once.
      for (const [index, movement] of direct.entries()) {
        if (outcomes[index] === 'insufficient_balance') continue;
        await eventually(
          async () =>
            stack.wallet
              .call(movement.kind, {
                customer_id: customer.id,
                entry_id: movement.entryId,
                amount_eur_cents: movement.amountEurCents,
                reason: 'adjustment',
                reference: 'sigterm',
              })
              .then(() => true),
          10_000,
          200,
        );
        const entries = await stack.ledgerEntries({ entry_id: movement.entryId });
        expect(entries, movement.entryId).toHaveLength(1);
      }
    }

    // Execution: batches in flight complete (their deadline is shorter than the grace) or are refused before sending.
    {
      const { calls, postbacks } = await burst('execution');
      await sleep(200);
      const execution = stack.service('execution');
      await execution.stop(15_000);
      exitCodes.execution = await execution.exited();
      await execution.restart();
      await settle(await Promise.all(calls), undelivered, postbacks);
    }
    // Across all three stops: the broker received exactly the legs of the batches that were answered.
    const brokerAtEnd = (await Promise.all(customer.accounts.map(brokerRequests))).flat().length;
    expect(brokerAtEnd - brokerBefore).toBe(batchIds.length * customer.accounts.length);
    for (const account of customer.accounts) await stack.control(`${accountPath(account)}/faults`, 'DELETE');
    const report = await load.stop();
    const redelivered = await redeliver(stack, [...undelivered, ...report.undelivered]);
    // A server purchase cut off by a stop stays pending until billing's recovery decides it; the verdict waits for that.
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, customer],
      batchIds: [...report.batchIds, ...batchIds],
      credits: [...credits, ...report.acknowledgedCredits, ...redelivered],
      debits: [...debits, ...report.acknowledgedDebits],
    });
    recordAndAssert(stack, {
      fault: '8. SIGTERM gateway, wallet, execution with requests in flight',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: requests + redelivered.length,
      scenarioErrors: kinds,
      verdict,
      notes: `${batchIds.length} batches answered, ${credits.length} credits acknowledged at once, ${redelivered.length} redelivered; exit codes ${JSON.stringify(exitCodes)}`,
    });
    expect(notRetriable).toEqual([]);
    expect(exitCodes).toEqual({ gateway: 0, wallet: 0, execution: 0 });
  });
});
