import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Field names whose values are secrets wherever they appear. pino's redaction replaces them before the line
 * is serialised, so a careless `log.info({ req })` still cannot leak a key.
 */
export const redactedPaths = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.headers.authorization',
  'key',
  '*.key',
  'full_key',
  'read_key',
  '*.full_key',
  '*.read_key',
  'api_key',
  '*.api_key',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'postback_secret',
  '*.postback_secret',
  'signature',
  '*.signature',
  'headers["x-signature"]',
  '*.headers["x-signature"]',
];

/** `destination` defaults to stdout; tests pass a stream to read the lines. */
export function createLogger(serviceName: string, options: LoggerOptions = {}, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: process.env.LOG_LEVEL ?? 'info',
      base: { service: serviceName },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      // Every line carries the active trace, so an SRE can jump from a log line to its trace. A line outside any
      // trace carries no trace fields (not an all-zero id that matches nothing).
      mixin() {
        const spanContext = trace.getActiveSpan()?.spanContext();
        if (!spanContext || !isSpanContextValid(spanContext)) return {};
        return { trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: `0${spanContext.traceFlags.toString(16)}` };
      },
      ...options,
    },
    ...(destination ? [destination] : []),
  );
}
