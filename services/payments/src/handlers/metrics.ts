import { meter } from '@mtx/shared/telemetry';
import type { CreditingWorker } from '../app/crediting-worker';

const paymentsMeter = meter('payments');

/**
 * The inbox as an SRE sees it: the oldest unsettled record's age (alert when it passes a few sweep intervals:
 * credits are stuck), the worker's queue, and counters of credited and released records.
 */
export function observeCrediting(worker: CreditingWorker): void {
  const oldestAge = paymentsMeter.createObservableGauge('mtx.payments.inbox.oldest_age', {
    unit: 'ms',
    description: 'Age of the oldest postback recorded in the inbox and not credited yet, at the last check; 0 when none',
  });
  const queued = paymentsMeter.createObservableGauge('mtx.payments.crediting.queued', {
    description: "Inbox records waiting in this replica's crediting worker",
  });
  const records = paymentsMeter.createObservableCounter('mtx.payments.crediting.records', {
    description: 'Inbox records by outcome: credited, released (handed back to the inbox for redelivery)',
  });
  paymentsMeter.addBatchObservableCallback(
    (observer) => {
      const { stats } = worker;
      observer.observe(oldestAge, stats.oldestAgeMs);
      observer.observe(queued, stats.queued);
      observer.observe(records, stats.credited, { 'mtx.outcome': 'credited' });
      observer.observe(records, stats.released, { 'mtx.outcome': 'released' });
    },
    [oldestAge, queued, records],
  );
}
