import type { Logger } from '@mtx/shared/logger';
import { extractTraceContext, type NatsConnection } from '@mtx/shared/nats';
import { context } from '@opentelemetry/api';
import type { Subscription } from 'nats';
import type { BillingService } from '../app/billing';

export interface CreditEventsOptions {
  subject: string;
  queueGroup: string;
  /** Credits handled at once; further messages wait in the subscription. */
  concurrency: number;
}

/**
 * Retries a customer's past-due and suspended renewals as soon as money arrives. The wallet publishes one
 * message per credit; a queue group gives each to one replica. A lost message only delays the retry until
 * the scheduler's periodic pass.
 *
 * Credits of one customer that arrive while a retry for that customer runs are folded into one more run after
 * it (which reads the state those credits left): a burst of top-ups costs two passes, not one per credit.
 */
export function subscribeCreditEvents(
  nats: NatsConnection,
  service: BillingService,
  logger: Logger,
  options: CreditEventsOptions,
): { close(): Promise<void> } {
  const subscription: Subscription = nats.subscribe(options.subject, { queue: options.queueGroup });
  const inFlight = new Set<Promise<unknown>>();
  // Customers with a retry running, and whether another credit arrived meanwhile.
  const runs = new Map<string, { again: boolean }>();
  const done = (async () => {
    for await (const message of subscription) {
      let customerId: unknown;
      try {
        customerId = (JSON.parse(new TextDecoder().decode(message.data)) as { customer_id?: unknown }).customer_id;
      } catch {
        logger.warn({ subject: message.subject }, 'ignored a credit event that is not JSON');
        continue;
      }
      if (typeof customerId !== 'string' || customerId.length === 0 || customerId.length > 128) {
        logger.warn({ subject: message.subject }, 'ignored a credit event without a customer_id');
        continue;
      }
      const customer = customerId;
      const running = runs.get(customer);
      if (running) {
        running.again = true;
        continue;
      }
      const run = { again: false };
      runs.set(customer, run);
      const traceContext = extractTraceContext(message.headers);
      const task = (async () => {
        do {
          run.again = false;
          try {
            const outcomes = await context.with(traceContext, () =>
              service.processCustomerNow(customer, { retryOverdue: true, freshView: true }),
            );
            if (outcomes.length > 0) logger.info({ customer_id: customer, outcomes }, 'renewals retried after a credit');
          } catch (error) {
            logger.warn(
              { customer_id: customer, err: { message: (error as Error)?.message } },
              'retry after a credit failed; the scheduler will retry',
            );
          }
        } while (run.again);
      })().finally(() => runs.delete(customer));
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
      if (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    }
  })();
  return {
    async close() {
      await subscription.drain().catch(() => undefined);
      await done.catch(() => undefined);
      await Promise.allSettled([...inFlight]);
    },
  };
}
