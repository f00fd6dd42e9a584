/**
 * Faults of the terminal bridge (docs/terminal-bridge.md) under load, with two connector-mt5 replicas whose
 * terminal addresses broker-sim's EAs know from the start: a replica killed with legs held at its terminals, a
 * terminal that freezes mid-batch, one that sends a malformed line, an impostor EA with a wrong token, and a
 * replica killed with modifies held at its terminals (each ticket modified once, whatever the retries). After
 * each: the ledger audit, every acknowledged movement in the ledger, and the execution invariants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import {
  accountPath,
  brokerRequests,
  customerWithTarget,
  holders,
  impostorHello,
  legsFor,
  legsOf,
  loadVerified,
  mt5Servers,
  placed,
  placeWhileHeld,
  releaseAndSettle,
  replicaAddress,
  setAnswers,
  startMt5Replica,
  type StartedRow,
  startRow,
  terminalOf,
} from './bridge-terminals';
import { type LoadOptions, type RunningLoad, startLoad } from './load';
import { modifiesByTicket, modifiesDone, modifiesHeld, stopsOf } from './modify-row';
import { brokerKeyOfLeg, FaultStack, sleep, type Customer, type TopupForPostbacks, type TradingAccount } from './stack';
import { printSummary } from './summary';
import { recordAndAssert } from './verify';

let stack: FaultStack;
let loadCustomers: Customer[];
let loadTopups: TopupForPostbacks[];

beforeAll(async () => {
  stack = await FaultStack.start({
    label: 'bridge',
    connectorReplicas: { mt5: 2 },
    // A frozen terminal sends no heartbeat: the connectors end its connection after 4 s rather than 30 s.
    env: { TERMINAL_HEARTBEAT_MS: '1000', TERMINAL_IDLE_MS: '4000' },
  });
  await startMt5Replica(stack, 'connector-mt5-2', 1);
  ({ customers: loadCustomers, topups: loadTopups } = await stack.loadCustomers(['bloada', 'bloadb']));
}, 240_000);

afterAll(async () => {
  if (stack?.serviceErrors.length)
    process.stdout.write(`[faults/bridge] service error lines (see ${stack.logFile}):\n${stack.serviceErrors.slice(-15).join('\n')}\n`);
  await stack?.close();
  printSummary();
});

/** The load runs its whole duration in every row: the fault, and the recovery after it, happen under it. */
function loadOptions(seed: number, durationMs = 6_000): LoadOptions {
  return {
    customers: loadCustomers,
    seed,
    concurrency: 3,
    durationMs,
    requestsMax: 1_000,
    pauseMs: 15,
    topups: loadTopups,
    mix: { wallet: 3, orders: 3, credit: 2, debit: 1, subscription: 1 },
  };
}

const statusesOf = (batch: Parameters<typeof legsOf>[0], legs: Array<Record<string, unknown>>, accounts: TradingAccount[]) =>
  accounts.flatMap((account) => legsOf(batch, legs, account).map((leg) => leg.status));

/** Ends a row that held some of its customer's accounts (releaseAndSettle), verified with the load's customers. */
const settleRow = (row: StartedRow, load: RunningLoad, held: TradingAccount[], customer: Customer, batchId: string) =>
  releaseAndSettle(stack, load, { row, held, customers: [...loadCustomers, customer], customer, batchId });

describe('fault suite: the terminal bridge', () => {
  it('B1. a connector replica SIGKILLed with legs held at its terminals: they redial the other replica, which settles every leg', async () => {
    const row = startRow('B1. connector-mt5 replica SIGKILL, legs held at its terminals', 'bridge replica SIGKILL');
    // Consecutive logins: each trade server's two accounts dial a different replica first (login mod 2).
    const victim = await stack.newCustomer('bkill', { accountsPerServer: 2, servers: mt5Servers });
    const held = await holders(stack, victim.accounts);
    const killedAddress = replicaAddress(stack, 'mt5', 1);
    const survivorAddress = replicaAddress(stack, 'mt5', 0);
    const onKilled = victim.accounts.filter((account) => held.get(account.id) === killedAddress);
    const onSurvivor = victim.accounts.filter((account) => held.get(account.id) === survivorAddress);
    expect(onKilled.length).toBeGreaterThan(0);
    expect(onSurvivor.length).toBeGreaterThan(0);
    const { load, legs, pending } = await placeWhileHeld(stack, victim, onKilled, {
      delayMs: 900,
      perAccount: 1,
      load: loadOptions(row.seed, 8_000),
      warmupMs: 1_000,
    });
    const killed = stack.service('connector-mt5-2');
    await killed.kill('SIGKILL');
    const killedAtMs = Date.now();
    const answer = await pending;
    // Sent to the killed replica's terminals and never answered: they may have executed.
    expect(statusesOf(answer, legs, onKilled)).toEqual(onKilled.map(() => 'unknown'));
    expect(statusesOf(answer, legs, onSurvivor)).toEqual(onSurvivor.map(() => 'filled'));
    // The orphaned terminals dial the next address after their backoff (TERMINAL_RECONNECT_MAX_MS).
    await eventually(
      async () => {
        const now = await holders(stack, onKilled, 1_000).catch(() => undefined);
        return now && onKilled.every((account) => now.get(account.id) === survivorAddress);
      },
      10_000,
      50,
    );
    const redialMs = Date.now() - killedAtMs;
    expect(redialMs).toBeLessThan(5_000);
    const { settled, summary } = await settleRow(row, load, onKilled, victim, answer.batch_id);
    // Settled by the surviving replica alone: the killed one was never started again.
    expect(killed.running()).toBe(false);
    recordAndAssert(stack, {
      ...summary,
      scenarioErrors: { 'leg unknown (victim batch)': onKilled.length },
      recoveryMs: redialMs,
      notes: `${onKilled.length} terminals redialled the surviving replica in ${redialMs} ms; victim batch settled as ${JSON.stringify(settled.summary)}`,
    });
    for (const account of onKilled) {
      expect(legsOf(settled, legs, account).map((leg) => [leg.status, leg.message])).toEqual([
        ['filled', 'found at the broker by reconciliation'],
      ]);
      expect(await brokerRequests(stack, account)).toHaveLength(1);
    }
    // The next rows run on two replicas again.
    await stack.stopReplica('connector-mt5-2');
    await startMt5Replica(stack, 'connector-mt5-2', 1);
  });

  it('B2. a terminal that freezes mid-batch: the other accounts fill, its legs are unknown and settle once it answers again', async () => {
    const row = startRow('B2. a terminal frozen mid-batch (silent), then answering again', 'bridge silent terminal');
    const { customer, target: frozen, others } = await customerWithTarget(stack, 'bsilent');
    const dialsBefore = (await terminalOf(stack, frozen)).terminals[0]!.dials;
    // The terminal freezes while its first leg is at the broker and its second waits in the EA.
    const { load, legs, pending } = await placeWhileHeld(stack, customer, [frozen], {
      delayMs: 600,
      perAccount: 2,
      load: loadOptions(row.seed),
    });
    await setAnswers(stack, frozen, 'silent');
    const answer = await pending;
    // Both were sent and never answered (docs/terminal-bridge.md, "Requests and answers"): unknown, not unavailable.
    expect(statusesOf(answer, legs, [frozen])).toEqual(['unknown', 'unknown']);
    expect(statusesOf(answer, legs, others)).toEqual(others.flatMap(() => ['filled', 'filled']));
    // No answer and no heartbeat: the connector's idle bound ends the connection and the EA dials again.
    await eventually(async () => (await terminalOf(stack, frozen)).terminals[0]!.dials > dialsBefore, 15_000, 200);
    const whileFrozen = await stack.api(customer.readKey, 'GET', `/v1/orders/batches/${answer.batch_id}`);
    expect(whileFrozen.body.settled).toBe(false);
    await setAnswers(stack, frozen, 'normal');
    const { settled, summary } = await settleRow(row, load, [frozen], customer, answer.batch_id);
    recordAndAssert(stack, {
      ...summary,
      scenarioErrors: { 'leg unknown (frozen terminal)': 2 },
      notes: `frozen terminal's legs settled as ${legsOf(settled, legs, frozen)
        .map((leg) => leg.status)
        .join(', ')}`,
    });
    // The leg at the broker when it froze executed; the one the EA had read but not started never did.
    const frozenLegs = legsOf(settled, legs, frozen);
    expect(frozenLegs.map((leg) => leg.status)).toEqual(['filled', 'rejected']);
    expect(frozenLegs[1]!.message).toMatch(/^not executed/);
    expect((await brokerRequests(stack, frozen)).map((record) => record.leg)).toEqual([brokerKeyOfLeg(frozenLegs[0]!.clientId)]);
  });

  it('B3. a terminal that sends garbage: only its connection closes, its leg in flight is unknown and settled after it redials', async () => {
    const row = startRow('B3. a terminal sends a malformed frame with a leg in flight', 'bridge garbage frame');
    const { customer, target, others } = await customerWithTarget(stack, 'bgarbage');
    const welcomesBefore = new Map<string, number>();
    for (const account of customer.accounts) welcomesBefore.set(account.id, (await terminalOf(stack, account)).terminals[0]!.welcomes);
    const { load, legs, pending } = await placeWhileHeld(stack, customer, [target], {
      delayMs: 700,
      perAccount: 1,
      load: loadOptions(row.seed),
    });
    await setAnswers(stack, target, 'garbage');
    const answer = await pending;
    expect(statusesOf(answer, legs, [target])).toEqual(['unknown']);
    expect(statusesOf(answer, legs, others)).toEqual(others.map(() => 'filled'));
    // The connector closed that connection (`error code=malformed`); the EA was admitted again, answering normally.
    const after = await eventually(async () => {
      const view = await terminalOf(stack, target);
      return view.terminals[0]!.connected && view.terminals[0]!.welcomes > welcomesBefore.get(target.id)! ? view : undefined;
    }, 10_000);
    expect(after.answers).toBe('normal');
    for (const account of others)
      expect((await terminalOf(stack, account)).terminals[0]).toMatchObject({ connected: true, welcomes: welcomesBefore.get(account.id) });
    const { settled, summary } = await settleRow(row, load, [target], customer, answer.batch_id);
    recordAndAssert(stack, {
      ...summary,
      scenarioErrors: { 'leg unknown (garbage terminal)': 1 },
      notes: `target leg settled as ${legsOf(settled, legs, target)[0]!.status}`,
    });
    expect(legsOf(settled, legs, target).map((leg) => [leg.status, leg.message])).toEqual([
      ['filled', 'found at the broker by reconciliation'],
    ]);
  });

  it('B4. an EA with a wrong token is refused bad_token and closed; the real terminal keeps trading, nothing is routed to the impostor', async () => {
    const row = startRow('B4. an impostor EA with a wrong token', 'bridge wrong token');
    const customer = await stack.newCustomer('bimpostor', { accountsPerServer: 1, servers: mt5Servers });
    const target = customer.accounts[0]!;
    const held = await holders(stack, [target]);
    const before = (await terminalOf(stack, target)).terminals[0]!;
    const load = startLoad(stack, loadOptions(row.seed));
    await sleep(500);
    // At the replica holding the real terminal (a hello that would replace it) and at the other one.
    const attempts = [];
    for (const port of stack.stack.terminalPorts.mt5) attempts.push(await impostorHello(port, target));
    for (const attempt of attempts) {
      expect(attempt.frames.map((frame) => [frame.type, frame.fields.get('reason')])).toEqual([['refuse', 'bad_token']]);
      expect(attempt.closedWithinMs).toBeLessThan(3_000);
    }
    const legs = legsFor([target], 2);
    const answer = await placed(stack, customer, legs);
    expect(answer.results.map((leg) => leg.status)).toEqual(['filled', 'filled']);
    const after = (await terminalOf(stack, target)).terminals[0]!;
    expect(after).toMatchObject({ connected: true, connector: held.get(target.id), welcomes: before.welcomes });
    expect((await brokerRequests(stack, target)).map((record) => record.leg).sort()).toEqual(
      legs.map((_, index) => brokerKeyOfLeg(`${answer.batch_id}-${index}`)).sort(),
    );
    recordAndAssert(stack, {
      ...row,
      ...(await loadVerified(stack, load, [...loadCustomers, customer], answer.batch_id)),
      scenarioRequests: attempts.length + 1,
      scenarioErrors: { 'refuse bad_token (impostor)': attempts.length },
      notes: `refused on ${attempts.length} replicas in ${attempts.map((attempt) => attempt.closedWithinMs).join(', ')} ms; the real terminal kept its connection`,
    });
  });

  it('B5. a replica SIGKILLed with modifies held at its terminals: they come back unknown, each ticket is modified once, a retry sends nothing', async () => {
    const row = startRow('B5. connector-mt5 replica SIGKILL, modifies held at its terminals', 'bridge modify SIGKILL');
    const victim = await stack.newCustomer('bmodify', { accountsPerServer: 2, servers: mt5Servers });
    const held = await holders(stack, victim.accounts);
    const onKilled = victim.accounts.filter((account) => held.get(account.id) === replicaAddress(stack, 'mt5', 1));
    const onSurvivor = victim.accounts.filter((account) => held.get(account.id) === replicaAddress(stack, 'mt5', 0));
    expect(onKilled.length).toBeGreaterThan(0);
    expect(onSurvivor.length).toBeGreaterThan(0);
    const opened = await placed(stack, victim, legsFor(victim.accounts, 1));
    expect(opened.results.map((leg) => leg.status)).toEqual(victim.accounts.map(() => 'filled'));
    const load = startLoad(stack, loadOptions(row.seed, 8_000));
    await sleep(1_000);
    for (const account of onKilled) await stack.control(`${accountPath(account)}/faults`, 'PUT', { delay_ms: 900 });
    // Long positions: a stop loss far below and a take profit far above any price the load's feed reaches.
    const body = {
      stop_loss: 0.5,
      take_profit: 5,
      accounts: victim.accounts.map((account) => ({ account_id: account.id, symbol: account.symbol })),
    };
    const headers = { 'idempotency-key': `bmodify-${row.seed}` };
    const pending = stack.api(victim.fullKey, 'POST', '/v1/orders/modify', body, headers);
    await modifiesHeld(stack, onKilled);
    const killed = stack.service('connector-mt5-2');
    await killed.kill('SIGKILL');
    const killedAtMs = Date.now();
    const answer = await pending;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const statusOf = (account: TradingAccount) =>
      answer.body.results.find((result: { account_id: string }) => result.account_id === account.id).status;
    // Sent to the killed replica's terminals and never answered: they may have taken effect.
    expect(onKilled.map(statusOf)).toEqual(onKilled.map(() => 'unknown'));
    expect(onSurvivor.map(statusOf)).toEqual(onSurvivor.map(() => 'modified'));
    await eventually(
      async () => {
        const now = await holders(stack, onKilled, 1_000).catch(() => undefined);
        return now && onKilled.every((account) => now.get(account.id) === replicaAddress(stack, 'mt5', 0));
      },
      10_000,
      50,
    );
    const redialMs = Date.now() - killedAtMs;
    for (const account of onKilled) await stack.control(`${accountPath(account)}/faults`, 'DELETE');
    await modifiesDone(stack, victim.accounts);
    // The retry answers the stored outcome and sends nothing; every held modify took effect, once.
    const replay = await stack.api(victim.fullKey, 'POST', '/v1/orders/modify', body, headers);
    expect(replay.body).toEqual({ ...answer.body, idempotent_replay: true });
    expect(await stopsOf(stack, victim)).toEqual(
      victim.accounts.map((account) => ({ account_id: account.id, stop_loss: 0.5, take_profit: 5 })),
    );
    let modifiedTwice = 0;
    for (const account of victim.accounts) {
      const byTicket = await modifiesByTicket(stack, account);
      expect([...byTicket.values()].map((records) => records.length)).toEqual([1]);
      modifiedTwice += [...byTicket.values()].filter((records) => records.length > 1).length;
    }
    const finished = await loadVerified(stack, load, [...loadCustomers, victim], opened.batch_id);
    recordAndAssert(stack, {
      ...row,
      ...finished,
      verdict: { ...finished.verdict, executedTwice: finished.verdict.executedTwice + modifiedTwice },
      scenarioRequests: 3,
      scenarioErrors: { 'modify unknown (killed replica)': onKilled.length },
      recoveryMs: redialMs,
      notes: `${onKilled.length} accounts' modifies unknown at the kill, each applied once at the broker; the Idempotency-Key retry sent nothing`,
    });
    expect(modifiedTwice).toBe(0);
    await stack.stopReplica('connector-mt5-2');
    await startMt5Replica(stack, 'connector-mt5-2', 1);
  });
});
