import { createCounter, createGauge, createHistogram, instruments } from '@mtx/shared/instruments';

/**
 * The execution figures an SRE alerts on: fan-out latency per platform, leg outcomes, NATS failures (and which
 * accounts they left unreachable), and how long unknown legs take to reconcile.
 */
export const executionMetrics = {
  fanoutDuration: createHistogram(instruments.executionFanoutDuration),
  legOutcomes: createCounter(instruments.executionLegOutcomes),
  terminalFailures: createCounter(instruments.executionNatsFailures),
  accountsUnreachable: createCounter(instruments.executionAccountsUnreachable),
  reconcileDuration: createHistogram(instruments.executionReconcileDuration),
  reconcileAbandoned: createCounter(instruments.executionReconcileAbandoned),
  unsettledOldestAge: createGauge(instruments.executionUnsettledOldestAge),
};

/**
 * Adds a batch's outcomes to the leg-outcome counter once per platform and status rather than once per leg:
 * every add hashes its attributes, and a 20-leg batch has 20 legs but usually one or two distinct pairs.
 */
export function countOutcomes(
  batchKind: 'orders' | 'close' | 'close.ticket' | 'modify',
  outcomes: Array<[platform: string, status: string]>,
): void {
  const counts = new Map<string, { platform: string; status: string; count: number }>();
  for (const [platform, status] of outcomes) {
    const key = `${platform} ${status}`;
    const entry = counts.get(key);
    if (entry) entry.count += 1;
    else counts.set(key, { platform, status, count: 1 });
  }
  for (const { platform, status, count } of counts.values())
    executionMetrics.legOutcomes.add(count, { 'mtx.platform': platform, 'mtx.batch_kind': batchKind, 'mtx.status': status });
}
