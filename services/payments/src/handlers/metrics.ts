import { meter } from '@mtx/shared/telemetry';
import type { CreditingWorker } from '../app/crediting-worker';

const paymentsMeter = meter('payments');

/**
 * The inbox as an SRE sees it: the oldest uncredited record's age (alert when it passes a few sweep intervals:
 * credits are stuck), the worker's queue, and counters of credited, deferred and re-driven records.
 */
export function observeCrediting(worker: CreditingWorker): void {
  const oldestAge = paymentsMeter.createObservableGauge('mtx.payments.inbox.oldest_age', {
    unit: 'ms',
    description: 'Age of the oldest postback in the inbox at the last sweep (recorded, not yet credited); 0 when empty',
  });
  const seen = paymentsMeter.createObservableGauge('mtx.payments.inbox.records', {
    description: 'Postbacks in the inbox at the last sweep (at most PAYMENTS_INBOX_SWEEP_BATCH)',
  });
  const queued = paymentsMeter.createObservableGauge('mtx.payments.crediting.queued', {
    description: "Inbox records waiting in this replica's crediting worker",
  });
  const records = paymentsMeter.createObservableCounter('mtx.payments.crediting.records', {
    description: 'Inbox records by outcome: credited, deferred (left to the sweep), redriven (by the sweep)',
  });
  paymentsMeter.addBatchObservableCallback(
    (observer) => {
      const { stats } = worker;
      observer.observe(oldestAge, stats.oldestAgeMs);
      observer.observe(seen, stats.inboxSeen);
      observer.observe(queued, stats.queued);
      observer.observe(records, stats.credited, { 'mtx.outcome': 'credited' });
      observer.observe(records, stats.deferred, { 'mtx.outcome': 'deferred' });
      observer.observe(records, stats.redriven, { 'mtx.outcome': 'redriven' });
    },
    [oldestAge, seen, queued, records],
  );
}
