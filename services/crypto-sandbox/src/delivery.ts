import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';
import { formatUnits } from './domain/catalog';
import { signatureHeader, signPostback } from './domain/signing';
import type { InvoiceDocument, TransactionDocument } from './store/sandbox-store';

/**
 * How the postbacks of one payment reach the merchant:
 * - normal: `confirming`, then `confirmed`;
 * - twice: as normal, then `confirmed` once more (a duplicate delivery);
 * - reversed: `confirmed` first, then `confirming` (out of order);
 * - late: as normal, after POSTBACK_LATE_DELAY_MS;
 * - never: nothing is sent (only reconciliation through GET invoice can find the payment).
 */
export const deliveryModes = ['normal', 'twice', 'reversed', 'late', 'never'] as const;
export type DeliveryMode = (typeof deliveryModes)[number];

type TransactionStatus = 'confirming' | 'confirmed';

const plans: Record<DeliveryMode, TransactionStatus[]> = {
  normal: ['confirming', 'confirmed'],
  twice: ['confirming', 'confirmed', 'confirmed'],
  reversed: ['confirmed', 'confirming'],
  late: ['confirming', 'confirmed'],
  never: [],
};

export interface DeliveryAttempt {
  delivery_id: string;
  transaction_id: string;
  invoice_id: string;
  status: TransactionStatus;
  attempt: number;
  http_status: number | null;
  error: string | null;
  outcome: 'delivered' | 'retrying' | 'gave_up';
  at: string;
}

export interface DispatcherOptions {
  clock: Clock;
  logger: Logger;
  secret: string;
  defaultUrl: string;
  timeoutMs: number;
  attempts: number;
  retryBaseMs: number;
  lateDelayMs: number;
  concurrency: number;
  queueMax: number;
}

const retryDelayMaxMs = 30_000;
const attemptsRememberedMax = 5_000;

export type PostbackDispatcher = ReturnType<typeof createPostbackDispatcher>;

/**
 * Sends signed postbacks the way a payment processor does: each message re-signed per attempt (its timestamp
 * inside the signed body lets the receiver refuse stale replays), retried with exponential backoff on any
 * failure or non-2xx answer, a bounded number of times. Payments of one transaction go out in plan order.
 * Pending work lives in memory: a sandbox restart drops it, which is what the merchant's reconciliation covers.
 */
export function createPostbackDispatcher(options: DispatcherOptions) {
  const { clock, logger } = options;
  const attempts: DeliveryAttempt[] = [];
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  const waiters: Array<() => void> = [];
  let inFlight = 0;
  let jobs = 0;
  let closed = false;
  let idle: Promise<void> = Promise.resolve();
  let markIdle: () => void = () => undefined;

  const sleep = (durationMs: number) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const handle = { timer: setTimeout(() => finish(), durationMs), resolve: () => finish() };
      function finish() {
        clearTimeout(handle.timer);
        timers.delete(handle);
        resolve();
      }
      timers.add(handle);
    });

  async function withSlot<T>(work: () => Promise<T>): Promise<T> {
    while (inFlight >= options.concurrency) await new Promise<void>((resolve) => waiters.push(resolve));
    inFlight += 1;
    try {
      return await work();
    } finally {
      inFlight -= 1;
      waiters.shift()?.();
    }
  }

  function remember(attempt: DeliveryAttempt): void {
    attempts.push(attempt);
    if (attempts.length > attemptsRememberedMax) attempts.splice(0, attempts.length - attemptsRememberedMax);
  }

  function body(invoice: InvoiceDocument, transaction: TransactionDocument, status: TransactionStatus, deliveryId: string): string {
    return JSON.stringify({
      type: 'transaction',
      delivery_id: deliveryId,
      timestamp: clock.now().toISOString(),
      invoice_id: invoice._id,
      order_id: invoice.order_id,
      address: invoice.address,
      asset_code: invoice.asset_code,
      blockchain_code: invoice.blockchain_code,
      transaction: {
        id: transaction.transaction_id,
        amount: transaction.amount,
        amount_decimal: formatUnits(BigInt(transaction.amount), invoice.decimals),
        status,
        confirmations: status === 'confirmed' ? 12 : 1,
        received_at: transaction.received_at.toISOString(),
      },
    });
  }

  async function deliver(
    url: string,
    invoice: InvoiceDocument,
    transaction: TransactionDocument,
    status: TransactionStatus,
  ): Promise<void> {
    const deliveryId = `dlv_${crypto.randomBytes(10).toString('hex')}`;
    for (let attempt = 1; attempt <= options.attempts && !closed; attempt++) {
      const payload = body(invoice, transaction, status, deliveryId);
      let httpStatus: number | null = null;
      let failure: string | null = null;
      await withSlot(async () => {
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'user-agent': 'mtx-crypto-sandbox/1',
              [signatureHeader]: signPostback(payload, options.secret),
            },
            body: payload,
            signal: AbortSignal.timeout(options.timeoutMs),
          });
          httpStatus = response.status;
          await response.arrayBuffer().catch(() => undefined);
        } catch (error) {
          failure = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (error as Error).message;
        }
      });
      const delivered = httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
      const outcome = delivered ? 'delivered' : attempt === options.attempts ? 'gave_up' : 'retrying';
      remember({
        delivery_id: deliveryId,
        transaction_id: transaction.transaction_id,
        invoice_id: invoice._id,
        status,
        attempt,
        http_status: httpStatus,
        error: failure,
        outcome,
        at: clock.now().toISOString(),
      });
      if (delivered) return;
      logger.warn(
        { delivery_id: deliveryId, invoice_id: invoice._id, status, attempt, http_status: httpStatus, error: failure },
        outcome === 'gave_up' ? 'postback gave up' : 'postback failed; retrying',
      );
      if (outcome === 'gave_up') return;
      await sleep(Math.min(retryDelayMaxMs, options.retryBaseMs * 2 ** (attempt - 1)));
    }
  }

  return {
    /** Queues the postbacks of one payment; refuses with 503 when the queue is full. */
    schedule(invoice: InvoiceDocument, transaction: TransactionDocument, mode: DeliveryMode): void {
      if (closed) throw new AppError('unavailable', 'the sandbox is shutting down');
      const plan = plans[mode];
      if (plan.length === 0) return;
      if (jobs >= options.queueMax) throw new AppError('unavailable', `postback queue is full (${options.queueMax}); retry shortly`);
      if (jobs === 0) idle = new Promise<void>((resolve) => (markIdle = resolve));
      jobs += 1;
      const url = invoice.callback_url ?? options.defaultUrl;
      void (async () => {
        try {
          if (mode === 'late') await sleep(options.lateDelayMs);
          for (const status of plan) {
            if (closed) return;
            await deliver(url, invoice, transaction, status);
          }
        } catch (error) {
          logger.error({ err: error, invoice_id: invoice._id }, 'postback job failed');
        } finally {
          jobs -= 1;
          if (jobs === 0) markIdle();
        }
      })();
    },

    attempts(filter: { transactionId?: string; invoiceId?: string } = {}): DeliveryAttempt[] {
      return attempts.filter(
        (attempt) =>
          (!filter.transactionId || attempt.transaction_id === filter.transactionId) &&
          (!filter.invoiceId || attempt.invoice_id === filter.invoiceId),
      );
    },

    pendingJobs: () => jobs,

    /** Stops retries and delays at once and waits for requests already on the wire. */
    async close(): Promise<void> {
      closed = true;
      for (const handle of [...timers]) handle.resolve();
      await idle;
    },
  };
}
