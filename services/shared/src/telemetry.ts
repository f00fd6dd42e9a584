import { metrics, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/**
 * Span and metric helpers, so every service names and records things the same way. Attribute values are
 * ids, platforms, statuses and amounts — never keys, passwords or signatures.
 */
export function tracer(name: string) {
  return trace.getTracer(name);
}

export function meter(name: string) {
  return metrics.getMeter(name);
}

/** Runs `work` inside an active span; a thrown error marks the span as failed with the error's message. */
export async function inSpan<T>(tracerName: string, spanName: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer(tracerName).startActiveSpan(spanName, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Latency buckets in milliseconds suited to our hot path (sub-millisecond to the 5 s execution deadline). */
export const latencyBucketsMs = [0.5, 1, 2, 3, 5, 7.5, 10, 15, 25, 50, 75, 100, 250, 500, 1000, 2500, 5000, 10000];
