import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';

/**
 * How the postbacks of one payment reach the merchant, whatever the provider's personality (each builds the
 * messages of a mode in its own format and signature):
 * - normal: the payment's progress in order (the sandbox: `confirming`, then `confirmed`);
 * - twice: as normal, with the final message delivered once more (a duplicate delivery);
 * - reversed: the final message first, then the earlier ones (out of order);
 * - late: as normal, after POSTBACK_LATE_DELAY_MS;
 * - never: nothing is sent (only reconciliation through the provider's read API can find the payment).
 */
export const deliveryModes = ['normal', 'twice', 'reversed', 'late', 'never'] as const;
export type DeliveryMode = (typeof deliveryModes)[number];

/** The progress of one payment in delivery order for a mode, from the order the provider would send it in. */
export function planFor<T>(mode: DeliveryMode, progress: readonly T[]): T[] {
  const final = progress[progress.length - 1];
  if (mode === 'never' || final === undefined) return [];
  if (mode === 'twice') return [...progress, final];
  if (mode === 'reversed') return [final, ...progress.slice(0, -1)];
  return [...progress];
}

/** One message of a payment's delivery; rendered afresh at each attempt (a provider re-signs its timestamps). */
export interface PostbackMessage {
  /** What the message says, for the attempt log (`confirmed`, `partially_paid`, `InvoicePaymentSettled`, …). */
  label: string;
  render(): { body: string; headers: Record<string, string> };
}

/** The postbacks of one payment, to send in order. */
export interface PostbackJob {
  invoiceId: string;
  transactionId: string;
  url: string;
  mode: DeliveryMode;
  messages: PostbackMessage[];
}

export interface DeliveryAttempt {
  delivery_id: string;
  transaction_id: string;
  invoice_id: string;
  /** The message's label (`confirmed`, `finished`, `InvoicePaymentSettled`, …). */
  status: string;
  attempt: number;
  http_status: number | null;
  error: string | null;
  outcome: 'delivered' | 'retrying' | 'gave_up';
  at: string;
}

export interface DispatcherOptions {
  clock: Clock;
  logger: Logger;
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
 * Sends signed postbacks the way a payment processor does: each message rendered and signed afresh per attempt
 * (a timestamp inside the signed body lets a receiver refuse stale replays), retried with exponential backoff on any
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

  async function deliver(job: PostbackJob, message: PostbackMessage): Promise<void> {
    const deliveryId = `dlv_${crypto.randomBytes(10).toString('hex')}`;
    for (let attempt = 1; attempt <= options.attempts && !closed; attempt++) {
      const rendered = message.render();
      let httpStatus: number | null = null;
      let failure: string | null = null;
      await withSlot(async () => {
        try {
          const response = await fetch(job.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'user-agent': 'mtx-crypto-sandbox/1', ...rendered.headers },
            body: rendered.body,
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
        transaction_id: job.transactionId,
        invoice_id: job.invoiceId,
        status: message.label,
        attempt,
        http_status: httpStatus,
        error: failure,
        outcome,
        at: clock.now().toISOString(),
      });
      if (delivered) return;
      logger.warn(
        { delivery_id: deliveryId, invoice_id: job.invoiceId, status: message.label, attempt, http_status: httpStatus, error: failure },
        outcome === 'gave_up' ? 'postback gave up' : 'postback failed; retrying',
      );
      if (outcome === 'gave_up') return;
      await sleep(Math.min(retryDelayMaxMs, options.retryBaseMs * 2 ** (attempt - 1)));
    }
  }

  return {
    /** Queues the postbacks of one payment; refuses with 503 when the queue is full. */
    schedule(job: PostbackJob): void {
      if (closed) throw new AppError('unavailable', 'the sandbox is shutting down');
      if (job.messages.length === 0) return;
      if (jobs >= options.queueMax) throw new AppError('unavailable', `postback queue is full (${options.queueMax}); retry shortly`);
      if (jobs === 0) idle = new Promise<void>((resolve) => (markIdle = resolve));
      jobs += 1;
      void (async () => {
        try {
          if (job.mode === 'late') await sleep(options.lateDelayMs);
          for (const message of job.messages) {
            if (closed) return;
            await deliver(job, message);
          }
        } catch (error) {
          logger.error({ err: error, invoice_id: job.invoiceId }, 'postback job failed');
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
