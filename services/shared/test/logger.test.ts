import { Writable } from 'node:stream';
import { context, trace, type SpanContext, INVALID_SPAN_CONTEXT } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger';
import { SynchronousContextManager } from '../src/telemetry';

beforeAll(() => {
  context.setGlobalContextManager(new SynchronousContextManager().enable());
});

afterAll(() => {
  context.disable();
});

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { lines, logger: createLogger('logger-test', { level: 'info' }, stream) };
}

describe('log lines and traces', () => {
  it('carries the active trace on a line inside one, and no trace fields on a line outside any', () => {
    const { lines, logger } = capture();
    const valid: SpanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
    context.with(trace.setSpanContext(context.active(), valid), () => logger.info('inside'));
    context.with(trace.setSpanContext(context.active(), INVALID_SPAN_CONTEXT), () => logger.info('invalid'));
    logger.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: valid.traceId, span_id: valid.spanId, trace_flags: '01' });
    for (const line of lines.slice(1)) {
      expect(line).not.toHaveProperty('trace_id');
      expect(line).not.toHaveProperty('span_id');
    }
  });
});
