/**
 * The checks every fault ends with, and the summary row it records: the ledger audit, acknowledged movements
 * present in the ledger, the execution invariants, and no answer the suite never accepts (a 5xx other than 503).
 */
import { expect } from 'vitest';
import type { LoadReport, Movement } from './load';
import { mergeKinds } from './load';
import type { AuditReport, Customer, FaultStack } from './stack';
import { recordFault } from './summary';

export interface Verdict {
  audit: AuditReport;
  missingMovements: Movement[];
  moneyLostEurCents: number;
  ordersLost: number;
  executedTwice: number;
  unsettledBatches: string[];
  executionProblems: string[];
  legsChecked: number;
  /** Server charges without the server (a purchase charged but dropped). */
  chargesWithoutPurchase: Array<{ entryId: string; customerId: string; amountEurCents: number; stored?: string }>;
  /** How long the postback inbox took to empty after the load stopped; null: not empty by the deadline. */
  inboxDrainedMs: number | null;
}

export async function verifyAfterFault(
  stack: FaultStack,
  input: {
    customers: Customer[];
    batchIds: string[];
    credits: Movement[];
    debits: Movement[];
    settleDeadlineMs?: number;
    purchasesSettleDeadlineMs?: number;
    inboxSettleDeadlineMs?: number;
  },
): Promise<Verdict> {
  const chargesWithoutPurchase = await stack.chargesWithoutPurchase(input.customers, input.purchasesSettleDeadlineMs ?? 30_000);
  // An acknowledged postback is credited from the inbox after its answer; a record a crash left is the sweep's.
  // Whatever is still there past the deadline shows as money lost below.
  const inboxDrainedMs = await stack.inboxDrained(input.inboxSettleDeadlineMs ?? 15_000);
  const missingMovements = await stack.missingFromLedger([...input.credits, ...input.debits]);
  const audit = await stack.audit();
  const withAccounts = input.customers.filter((customer) => customer.accounts.length > 0);
  const execution =
    input.batchIds.length > 0 || withAccounts.length > 0
      ? await stack.executionInvariants(withAccounts, input.batchIds, input.settleDeadlineMs)
      : undefined;
  return {
    audit,
    missingMovements,
    moneyLostEurCents: missingMovements.reduce((sum, movement) => sum + movement.amountEurCents, 0),
    ordersLost: execution?.ordersLost ?? 0,
    executedTwice: execution?.executedTwice ?? 0,
    unsettledBatches: execution?.unsettled ?? [],
    executionProblems: execution?.problems ?? [],
    legsChecked: execution?.legs ?? 0,
    chargesWithoutPurchase,
    inboxDrainedMs,
  };
}

export interface RowInput {
  fault: string;
  seed: number;
  startedAtMs: number;
  load: LoadReport;
  /** Requests the scenario made itself, beside the load. */
  scenarioRequests: number;
  scenarioErrors: Record<string, number>;
  verdict: Verdict;
  notes?: string;
  recoveryMs?: number;
}

/** Records the summary row first (so a failing fault still shows in the table), then asserts it. */
export function recordAndAssert(stack: FaultStack, input: RowInput): void {
  const { verdict, load } = input;
  const legKinds = Object.fromEntries(
    Object.entries(load.legStatuses)
      .filter(([status]) => status !== 'filled')
      .map(([status, count]) => [`leg ${status}`, count]),
  );
  recordFault({
    fault: input.fault,
    load: load.describe(),
    requests: load.requests + input.scenarioRequests,
    errorsByKind: mergeKinds(load.errorsByKind, input.scenarioErrors, legKinds),
    moneyLostEurCents: verdict.moneyLostEurCents + verdict.chargesWithoutPurchase.reduce((sum, charge) => sum + charge.amountEurCents, 0),
    ordersLost: verdict.ordersLost + verdict.unsettledBatches.length,
    ordersExecutedTwice: verdict.executedTwice,
    seed: input.seed,
    durationMs: Date.now() - input.startedAtMs,
    recoveryMs: input.recoveryMs,
    notes:
      [
        input.notes,
        verdict.inboxDrainedMs === null ? 'postback inbox not empty' : undefined,
        verdict.audit.ok ? undefined : `audit: ${verdict.audit.breaches.slice(0, 3).join('; ')}`,
      ]
        .filter(Boolean)
        .join(' | ') || undefined,
  });
  const context = `${input.fault} (replay with FAULT_SEED=${input.seed}; service log ${stack.logFile})`;
  expect(load.serverErrors, `${context}: answers that are server errors`).toEqual([]);
  expect(load.violations, `${context}: invariants broken by single answers`).toEqual([]);
  expect(verdict.audit.breaches, `${context}: ledger audit`).toEqual([]);
  expect(verdict.audit.ok, context).toBe(true);
  expect(verdict.missingMovements, `${context}: acknowledged movements missing from the ledger`).toEqual([]);
  expect(verdict.inboxDrainedMs, `${context}: postbacks left uncredited in the inbox`).not.toBeNull();
  expect(
    verdict.chargesWithoutPurchase,
    `${context}: server charges without their server (the first: ${JSON.stringify(verdict.chargesWithoutPurchase.slice(0, 4))})`,
  ).toEqual([]);
  expect(verdict.executionProblems, `${context}: execution invariants`).toEqual([]);
  expect(verdict.unsettledBatches, `${context}: batches with unknown legs after reconciliation`).toEqual([]);
}

/** Adds one answer of this kind (`<status> <code>`, `network <code>`, `grpc <code>`) to a tally. */
export function tally(kinds: Record<string, number>, kind: string): void {
  kinds[kind] = (kinds[kind] ?? 0) + 1;
}
