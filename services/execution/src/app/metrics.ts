import { latencyBucketsMs, meter } from '@mtx/shared/telemetry';

/** The execution figures an SRE alerts on: fan-out latency per platform, leg outcomes, NATS failures. */
const executionMeter = meter('execution');

export const executionMetrics = {
  fanoutDuration: executionMeter.createHistogram('mtx.execution.fanout.duration', {
    unit: 'ms',
    description: 'Time from publishing a terminal request to its answer (or deadline), per platform and operation',
    advice: { explicitBucketBoundaries: latencyBucketsMs },
  }),
  legOutcomes: executionMeter.createCounter('mtx.execution.leg.outcomes', {
    description:
      'Order legs and close tickets by final status at response time (filled, placed, rejected, unavailable, unknown, closed, skipped, failed)',
  }),
  terminalFailures: executionMeter.createCounter('mtx.execution.nats.failures', {
    description: 'Terminal requests that got no answer: no_responders (no connector subscribed) or timeout (no reply by the deadline)',
  }),
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
