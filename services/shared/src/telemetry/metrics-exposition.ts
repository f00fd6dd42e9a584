import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers a scrape with the process's metrics in Prometheus text. */
export type MetricsHandler = (request: IncomingMessage, response: ServerResponse) => void;

let handler: MetricsHandler | undefined;

/**
 * Where the instrumentation (which starts the SDK as it is imported, so only mains import it) hands its Prometheus
 * reader to the operations listener, which everything else may import.
 */
export function exposeMetrics(metricsHandler: MetricsHandler): void {
  handler = metricsHandler;
}

/** The Prometheus reader's handler, when this process keeps one (see instrumentation.ts); else undefined. */
export function metricsHandler(): MetricsHandler | undefined {
  return handler;
}
