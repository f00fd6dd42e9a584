/**
 * What the bridge's fault rows (bridge.test.ts) read and switch of broker-sim's hosted terminals
 * (docs/terminal-bridge.md): which connector replica holds each account's terminal, how a terminal answers
 * (`PUT /control/accounts/:server/:login/terminal`), what the broker received, and an impostor EA that dials a
 * connector by hand. Also the steps the rows share: a batch placed while the broker holds some of its legs,
 * and the load's end verified.
 */
import { expect } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { ScriptedTerminal } from '../../services/connector-runtime/test/scripted-terminal';
import type { RawFrame } from '../../services/connector-runtime/src/bridge/wire';
import { type LoadOptions, type RunningLoad, startLoad } from './load';
import { brokerKeyOfRecord, brokerServers, type Customer, type FaultStack, sleep, type TradingAccount } from './stack';
import { seedFromEnvironment } from './summary';
import { verifyAfterFault } from './verify';

export const mt5Servers = brokerServers.filter((server) => server.platform === 'mt5');

export const accountPath = (account: TradingAccount) => `/control/accounts/${account.server}/${account.login}`;

export type TerminalAnswers = 'normal' | 'silent' | 'garbage';

export interface TerminalView {
  answers: TerminalAnswers;
  terminals: Array<{ connected: boolean; connector?: string; dials: number; welcomes: number; refusals: string[] }>;
}

export function terminalOf(stack: FaultStack, account: TradingAccount): Promise<TerminalView> {
  return stack.control<TerminalView>(`${accountPath(account)}/terminal`);
}

export function setAnswers(stack: FaultStack, account: TradingAccount, answers: TerminalAnswers): Promise<TerminalView> {
  return answers === 'normal'
    ? stack.control<TerminalView>(`${accountPath(account)}/terminal`, 'DELETE')
    : stack.control<TerminalView>(`${accountPath(account)}/terminal`, 'PUT', { answers });
}

/** The terminal address (`127.0.0.1:<port>`) of a platform's connector replica, in the order the EAs are given them. */
export function replicaAddress(stack: FaultStack, platform: 'mt4' | 'mt5', replica: number): string {
  const port = stack.stack.terminalPorts[platform][replica];
  if (port === undefined) throw new Error(`the stack has no ${platform} connector replica ${replica}`);
  return `127.0.0.1:${port}`;
}

/** Starts connector-mt5 replica `replica` (1 and up) on its own terminal port, under `name`. */
export function startMt5Replica(stack: FaultStack, name: string, replica: number) {
  return stack.startReplica('connector-mt5', name, { TERMINAL_LISTEN_PORT: String(stack.stack.terminalPorts.mt5[replica]) });
}

/** Waits until every account's terminal is admitted by a connector, and answers which one holds each. */
export async function holders(stack: FaultStack, accounts: TradingAccount[], deadlineMs = 15_000): Promise<Map<string, string>> {
  return eventually(
    async () => {
      const held = new Map<string, string>();
      for (const account of accounts) {
        const connector = (await terminalOf(stack, account)).terminals.find((terminal) => terminal.connected)?.connector;
        if (!connector) return undefined;
        held.set(account.id, connector);
      }
      return held;
    },
    deadlineMs,
    100,
  );
}

/** The trade requests the broker received for the account; `leg` is the tag of the leg each was sent for (brokerKeyOfLeg). */
export async function brokerRequests(stack: FaultStack, account: TradingAccount): Promise<Array<{ leg: string; state: string }>> {
  const { requests } = await stack.control<{ requests: Array<{ clientId: string; state: string }> }>(`${accountPath(account)}/requests`);
  return requests.map((record) => ({ leg: brokerKeyOfRecord(record.clientId), state: record.state }));
}

/** Waits until the broker holds `count` requests of these accounts in `processing` (held by a `delay_ms` fault). */
export async function processingAtBroker(stack: FaultStack, accounts: TradingAccount[], count: number, deadlineMs = 5_000): Promise<void> {
  await eventually(
    async () => {
      let processing = 0;
      for (const account of accounts)
        processing += (await brokerRequests(stack, account)).filter((record) => record.state === 'processing').length;
      return processing >= count;
    },
    deadlineMs,
    20,
  );
}

/** `perAccount` market legs on each account, alternating buy and sell. */
export function legsFor(accounts: TradingAccount[], perAccount: number): Array<Record<string, unknown>> {
  return accounts.flatMap((account) =>
    Array.from({ length: perAccount }, (_, index) => ({
      account_id: account.id,
      symbol: account.symbol,
      operation: index % 2 === 0 ? 'buy' : 'sell',
      volume: 0.1,
    })),
  );
}

export interface LegResult {
  status: string;
  message?: string;
}

/** The legs of a batch answer that belong to `account`, with their client ids (`<batch>-<index>`). */
export function legsOf(
  batch: { batch_id: string; results: LegResult[] },
  legs: Array<Record<string, unknown>>,
  account: TradingAccount,
): Array<LegResult & { clientId: string }> {
  return legs.flatMap((leg, index) =>
    leg.account_id === account.id ? [{ ...batch.results[index]!, clientId: `${batch.batch_id}-${index}` }] : [],
  );
}

/** A batch of the customer's, read until it is settled (every leg decided). */
export async function settledBatch(stack: FaultStack, customer: Customer, batchId: string, deadlineMs = 30_000) {
  return eventually(
    async () => {
      const answer = await stack.api(customer.readKey, 'GET', `/v1/orders/batches/${batchId}`);
      return answer.status === 200 && answer.body.settled
        ? (answer.body as { batch_id: string; results: LegResult[]; summary: Record<string, number> })
        : undefined;
    },
    deadlineMs,
    250,
  );
}

/**
 * An EA nobody set up: dials a connector's terminal port and says `hello` for a registered account with a token
 * of the right form that was never issued. Answers every frame the connector sent until it closed.
 */
export async function impostorHello(port: number, account: TradingAccount): Promise<{ frames: RawFrame[]; closedWithinMs: number }> {
  const impostor = await ScriptedTerminal.connect(port);
  const startedAtMs = Date.now();
  try {
    impostor.hello({ login: account.login, server: account.server, token: `tk_${'x'.repeat(40)}` });
    const frames: RawFrame[] = [];
    for (;;) {
      try {
        frames.push(await impostor.next({ heartbeats: true, timeoutMs: 5_000 }));
      } catch {
        break;
      }
    }
    await impostor.closed;
    return { frames, closedWithinMs: Date.now() - startedAtMs };
  } finally {
    impostor.destroy();
  }
}

/** A row's summary identity: its fault, the seed its load runs with (summary.ts) and when it started. */
export function startRow(fault: string, seedLabel: string) {
  const seed = seedFromEnvironment(seedLabel);
  return { fault, seed, startedAtMs: Date.now() };
}

export type StartedRow = ReturnType<typeof startRow>;

export interface BatchAnswer {
  batch_id: string;
  results: Array<{ status: string; message?: string }>;
  summary: Record<string, number>;
}

/** Places a batch of the customer's legs (`POST /v1/orders`), which must be answered 200. */
export async function placed(stack: FaultStack, customer: Customer, legs: Array<Record<string, unknown>>): Promise<BatchAnswer> {
  const answer = await stack.api(customer.fullKey, 'POST', '/v1/orders', { orders: legs });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as BatchAnswer;
}

/** A new customer with one account per trade server, every terminal attached; one MT5 account is the row's target. */
export async function customerWithTarget(stack: FaultStack, label: string) {
  const customer = await stack.newCustomer(label, { accountsPerServer: 1 });
  const target = customer.accounts.find((account) => account.platform === 'mt5')!;
  const others = customer.accounts.filter((account) => account !== target);
  await holders(stack, customer.accounts);
  return { customer, target, others };
}

/**
 * Starts the row's load and, `warmupMs` into it, places `perAccount` legs on each of the customer's accounts while
 * the broker holds the `held` accounts' requests for `delayMs` (a `delay_ms` fault). Answers once a request of each
 * held account is at the broker, the batch's answer still pending.
 */
export async function placeWhileHeld(
  stack: FaultStack,
  customer: Customer,
  held: TradingAccount[],
  options: { delayMs: number; perAccount: number; load: LoadOptions; warmupMs?: number },
): Promise<{ load: RunningLoad; legs: Array<Record<string, unknown>>; pending: Promise<BatchAnswer> }> {
  for (const account of held) await stack.control(`${accountPath(account)}/faults`, 'PUT', { delay_ms: options.delayMs });
  const load = startLoad(stack, options.load);
  await sleep(options.warmupMs ?? 500);
  const legs = legsFor(customer.accounts, options.perAccount);
  const pending = placed(stack, customer, legs);
  await processingAtBroker(stack, held, held.length);
  return { load, legs, pending };
}

/**
 * Waits for the row's load to stop, then verifies the ledger and the execution invariants over the customers
 * and every batch placed (the load's and the row's own): the `load` and `verdict` of the row's summary.
 */
export async function loadVerified(stack: FaultStack, load: RunningLoad, customers: Customer[], batchId: string) {
  const report = await load.finished;
  const verdict = await verifyAfterFault(stack, {
    customers,
    batchIds: [...report.batchIds, batchId],
    credits: report.acknowledgedCredits,
    debits: report.acknowledgedDebits,
  });
  return { load: report, verdict };
}

/**
 * Ends a row that placed one batch while the broker held the `held` accounts: lifts their `delay_ms` faults,
 * verifies the load's end (loadVerified) and reads the batch once settled. `summary` is the row's summary input
 * so far: its identity (startRow), load and verdict, and its one scenario request.
 */
export async function releaseAndSettle(
  stack: FaultStack,
  load: RunningLoad,
  options: { row: StartedRow; held: TradingAccount[]; customers: Customer[]; customer: Customer; batchId: string },
) {
  for (const account of options.held) await stack.control(`${accountPath(account)}/faults`, 'DELETE');
  const finished = await loadVerified(stack, load, options.customers, options.batchId);
  const settled = await settledBatch(stack, options.customer, options.batchId);
  return { settled, summary: { ...options.row, ...finished, scenarioRequests: 1 } };
}
