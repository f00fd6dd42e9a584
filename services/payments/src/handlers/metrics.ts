import { createObservableCounter, createObservableGauge, instruments, observeTogether } from '@mtx/shared/instruments';
import type { CreditingWorker } from '../app/crediting-worker';

/**
 * The inbox as an SRE sees it: the oldest unsettled record's age (alert when it passes a few sweep intervals:
 * credits are stuck), the worker's queue, and counters of credited and released records.
 */
export function observeCrediting(worker: CreditingWorker): void {
  const oldestAge = createObservableGauge(instruments.paymentsInboxOldestAge);
  const queued = createObservableGauge(instruments.paymentsCreditingQueued);
  const records = createObservableCounter(instruments.paymentsCreditingRecords);
  observeTogether(
    'payments',
    (observer) => {
      const { stats } = worker;
      if (stats.oldestAgeMs !== undefined) observer.observe(oldestAge, stats.oldestAgeMs);
      observer.observe(queued, stats.queued);
      observer.observe(records, stats.credited, { 'mtx.outcome': 'credited' });
      observer.observe(records, stats.released, { 'mtx.outcome': 'released' });
    },
    [oldestAge, queued, records],
  );
}
