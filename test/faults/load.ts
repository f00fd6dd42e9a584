/**
 * The bounded load every fault runs under: a few workers calling the public API as customers do (reads,
 * order batches, provider postbacks that credit, server purchases that debit), stopping by themselves after a
 * request count or a duration. It records what a client would need to know afterwards: every acknowledged
 * credit and debit (which must be in the ledger), every batch id (whose legs must settle), and every answer that
 * was not a success, by kind.
 */
import crypto from 'node:crypto';
import { errorKind, sleep, type Customer, type FaultStack, type HttpAnswer, type TopupForPostbacks } from './stack';
import { seededRandom } from './summary';

export type LoadOperation = 'wallet' | 'subscription' | 'orders' | 'close' | 'credit' | 'debit';

export interface LoadOptions {
  customers: Customer[];
  seed: number;
  concurrency: number;
  durationMs: number;
  requestsMax: number;
  /** Relative weights of the operations. */
  mix: Partial<Record<LoadOperation, number>>;
  /** Top-ups the credit operation pays into (one small transaction per postback). */
  topups?: TopupForPostbacks[];
  /** Pause of each worker between requests, so the load leaves the faults some CPU on a small machine. */
  pauseMs?: number;
}

export interface Movement {
  customerId: string;
  entryId?: string;
  entryIdPrefix?: string;
  amountEurCents: number;
}

export interface UndeliveredPostback {
  body: string;
  entryId: string;
  customerId: string;
  /** What the payment is worth, as far as the sender can tell (for the money-lost figure if it never lands). */
  amountEurCents: number;
}

export interface LoadSample {
  atMs: number;
  operation: LoadOperation;
  ok: boolean;
  kind: string;
}

export interface LoadReport {
  requests: number;
  durationMs: number;
  byOperation: Record<string, number>;
  errorsByKind: Record<string, number>;
  legStatuses: Record<string, number>;
  /** Answers with status 500 or above other than 503 (a server error the suite never accepts). */
  serverErrors: Array<{ operation: LoadOperation; status: number; body: unknown }>;
  /** Invariants a single answer can break (a negative balance, a balance over the cap). */
  violations: string[];
  acknowledgedCredits: Movement[];
  acknowledgedDebits: Movement[];
  /** Postbacks that got no 2xx: the provider retries them; the suite redelivers them after the fault. */
  undelivered: UndeliveredPostback[];
  batchIds: string[];
  samples: LoadSample[];
  describe(): string;
}

export interface RunningLoad {
  stop(): Promise<LoadReport>;
  /** Resolves when the load has stopped by itself (count or duration reached). */
  finished: Promise<LoadReport>;
}

const serverPlanPriceEurCents = 1_500;

export function startLoad(stack: FaultStack, options: LoadOptions): RunningLoad {
  const random = seededRandom(options.seed);
  const weights = Object.entries(options.mix).filter(([, weight]) => (weight ?? 0) > 0) as Array<[LoadOperation, number]>;
  const totalWeight = weights.reduce((sum, [, weight]) => sum + weight, 0);
  const pick = (): LoadOperation => {
    let roll = random() * totalWeight;
    for (const [operation, weight] of weights) {
      roll -= weight;
      if (roll <= 0) return operation;
    }
    return weights[weights.length - 1]![0];
  };
  const startedAt = Date.now();
  const report: Omit<LoadReport, 'describe'> = {
    requests: 0,
    durationMs: 0,
    byOperation: {},
    errorsByKind: {},
    legStatuses: {},
    serverErrors: [],
    violations: [],
    acknowledgedCredits: [],
    acknowledgedDebits: [],
    undelivered: [],
    batchIds: [],
    samples: [],
  };
  let stopping = false;
  let transactionSequence = 0;
  const runTag = crypto.randomBytes(3).toString('hex');

  const record = (operation: LoadOperation, answer: HttpAnswer, ok: boolean) => {
    report.requests += 1;
    report.byOperation[operation] = (report.byOperation[operation] ?? 0) + 1;
    const kind = ok ? 'ok' : errorKind(answer);
    if (!ok) report.errorsByKind[kind] = (report.errorsByKind[kind] ?? 0) + 1;
    if (answer.status >= 500 && answer.status !== 503) report.serverErrors.push({ operation, status: answer.status, body: answer.body });
    if (report.samples.length < 20_000) report.samples.push({ atMs: Date.now() - startedAt, operation, ok, kind });
  };

  const operations: Record<LoadOperation, (customer: Customer) => Promise<HttpAnswer | undefined>> = {
    async wallet(customer) {
      const answer = await stack.api(customer.readKey, 'GET', '/v1/wallet');
      const ok = answer.status === 200;
      if (ok) {
        const balance = answer.body.balance_eur_cents as number;
        if (!(balance >= 0 && balance <= 100_000)) report.violations.push(`GET /v1/wallet of ${customer.id} answered balance ${balance}`);
        if (!(answer.body.held_eur_cents >= 0))
          report.violations.push(`GET /v1/wallet of ${customer.id} answered held ${answer.body.held_eur_cents}`);
      }
      record('wallet', answer, ok);
      return answer;
    },
    async subscription(customer) {
      const answer = await stack.api(customer.readKey, 'GET', '/v1/subscription');
      record('subscription', answer, answer.status === 200);
      return answer;
    },
    async orders(customer) {
      if (customer.accounts.length === 0) return undefined;
      const legs = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const account = customer.accounts[Math.floor(random() * customer.accounts.length)]!;
        return { account_id: account.id, symbol: account.symbol, operation: random() < 0.5 ? 'buy' : 'sell', volume: 0.1 };
      });
      const answer = await stack.api(customer.fullKey, 'POST', '/v1/orders', { orders: legs });
      const ok = answer.status === 200;
      if (ok) {
        report.batchIds.push(answer.body.batch_id);
        for (const leg of answer.body.results as Array<{ status: string }>)
          report.legStatuses[leg.status] = (report.legStatuses[leg.status] ?? 0) + 1;
      }
      record('orders', answer, ok);
      return answer;
    },
    async close(customer) {
      if (customer.accounts.length === 0) return undefined;
      const account = customer.accounts[Math.floor(random() * customer.accounts.length)]!;
      const answer = await stack.api(customer.fullKey, 'POST', '/v1/orders/close', {
        accounts: [{ account_id: account.id, symbol: account.symbol }],
      });
      const ok = answer.status === 200;
      if (ok) {
        report.batchIds.push(answer.body.batch_id);
        for (const result of answer.body.results as Array<{ status: string }>)
          report.legStatuses[`close ${result.status}`] = (report.legStatuses[`close ${result.status}`] ?? 0) + 1;
      }
      record('close', answer, ok);
      return answer;
    },
    async credit(customer) {
      const pool = (options.topups ?? []).filter((topup) => topup.customerId === customer.id);
      if (pool.length === 0) return undefined;
      const topup = pool[Math.floor(random() * pool.length)]!;
      const transactionId = `load-${runTag}-${options.seed}-${++transactionSequence}`;
      // A twentieth of the quoted amount: many payments fit in one quote, and over-payment is credited too.
      const body = stack.postbackBody(topup, transactionId, topup.depositUnits / 20n, 'confirmed');
      const answer = await stack.postback(body);
      const ok = answer.status === 200;
      const entryId = `topup:sandbox:${transactionId}`;
      const amountEurCents = Math.floor(topup.amountEurCents / 20);
      if (ok) report.acknowledgedCredits.push({ customerId: customer.id, entryId, amountEurCents });
      else report.undelivered.push({ body, entryId, customerId: customer.id, amountEurCents });
      record('credit', answer, ok);
      return answer;
    },
    async debit(customer) {
      const key = `load-${runTag}-${crypto.randomBytes(6).toString('hex')}`;
      const answer = await stack.api(
        customer.fullKey,
        'POST',
        '/v1/servers',
        { plan: 'vps-small', label: 'load server' },
        { 'idempotency-key': key },
      );
      const ok = answer.status === 201;
      if (ok)
        report.acknowledgedDebits.push({
          customerId: customer.id,
          entryIdPrefix: `server:${answer.body.id}:`,
          amountEurCents: serverPlanPriceEurCents,
        });
      // 402 is a correct refusal (the balance cannot pay), not a failure of the system.
      record('debit', answer, ok || answer.status === 402);
      return answer;
    },
  };

  const worker = async () => {
    while (!stopping && report.requests < options.requestsMax && Date.now() - startedAt < options.durationMs) {
      const customer = options.customers[Math.floor(random() * options.customers.length)]!;
      const operation = pick();
      let answer: HttpAnswer | undefined;
      try {
        answer = await operations[operation](customer);
      } catch (error) {
        report.violations.push(`${operation} threw: ${(error as Error).message}`);
      }
      // A refused connection answers at once; backing off keeps a dead gateway from turning the load into a spin.
      if (answer?.networkError) await sleep(100);
      if (options.pauseMs) await sleep(options.pauseMs);
    }
  };

  const finished = Promise.all(Array.from({ length: options.concurrency }, worker)).then(() => {
    report.durationMs = Date.now() - startedAt;
    const mixText = weights.map(([operation]) => operation).join('+');
    return {
      ...report,
      describe: () => `${options.concurrency} workers, ${(report.durationMs / 1000).toFixed(1)} s, ${mixText}`,
    };
  });
  return {
    finished,
    async stop() {
      stopping = true;
      return finished;
    },
  };
}

/** Adds up error kinds of several sources into one map. */
export function mergeKinds(...maps: Array<Record<string, number>>): Record<string, number> {
  const merged: Record<string, number> = {};
  for (const map of maps) for (const [kind, count] of Object.entries(map)) merged[kind] = (merged[kind] ?? 0) + count;
  return merged;
}

/**
 * Redelivers the postbacks that got no 2xx, as a provider does, with fresh timestamps, until each is accepted
 * (or the deadline passes); returns the entry ids that are now acknowledged.
 */
export async function redeliver(stack: FaultStack, undelivered: UndeliveredPostback[], deadlineMs = 30_000): Promise<Movement[]> {
  const acknowledged: Movement[] = [];
  const until = Date.now() + deadlineMs;
  for (const postback of undelivered) {
    for (;;) {
      const parsed = JSON.parse(postback.body) as Record<string, unknown>;
      const body = JSON.stringify({ ...parsed, timestamp: new Date().toISOString() });
      const answer = await stack.postback(body);
      if (answer.status === 200) {
        acknowledged.push({ customerId: postback.customerId, entryId: postback.entryId, amountEurCents: postback.amountEurCents });
        break;
      }
      if (Date.now() > until) throw new Error(`postback for ${postback.entryId} still refused after the fault: ${errorKind(answer)}`);
      await sleep(250);
    }
  }
  return acknowledged;
}
