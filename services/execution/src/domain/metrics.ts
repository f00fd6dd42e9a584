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
    description: 'Order legs and close tickets by final status at response time (filled, placed, rejected, unavailable, unknown, closed, skipped, failed)',
  }),
  terminalFailures: executionMeter.createCounter('mtx.execution.nats.failures', {
    description: 'Terminal requests that got no answer: no_responders (no connector subscribed) or timeout (no reply by the deadline)',
  }),
};
