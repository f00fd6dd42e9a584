import { context, trace, type SpanContext, INVALID_SPAN_CONTEXT } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeferredChildLogger } from '../src/telemetry/logger';
import { capturedLogger } from '../src/testing/captured-logger';
import { SynchronousContextManager } from '../src/telemetry/telemetry';

beforeAll(() => {
  context.setGlobalContextManager(new SynchronousContextManager().enable());
});

afterAll(() => {
  context.disable();
});

describe('log lines and traces', () => {
  it('carries the active trace on a line inside one, and no trace fields on a line outside any', () => {
    const { lines, logger } = capturedLogger('logger-test');
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

describe('a child logger made on its first written line', () => {
  it('makes no child for lines below the level, and writes the bindings, redacted, once a line is written', () => {
    const { lines, logger, childrenMade } = capturedLogger('logger-test', 'warn');
    const deferred = new DeferredChildLogger(logger, { reqId: 'req_1', password: 'hunter2' });
    deferred.info({ step: 1 }, 'below the level');
    deferred.debug('below the level');
    expect(deferred.isLevelEnabled('info')).toBe(false);
    expect(deferred.level).toBe('warn');
    expect(childrenMade()).toBe(0);
    expect(lines).toHaveLength(0);
    deferred.warn({ step: 2 }, 'written');
    deferred.error('written again');
    expect(childrenMade()).toBe(1);
    expect(lines.map((line) => line.msg)).toEqual(['written', 'written again']);
    expect(lines[0]).toMatchObject({ reqId: 'req_1', password: '[redacted]', step: 2, service: 'logger-test' });
    deferred.child({ leg: 3 }).warn('from a grandchild');
    expect(lines[2]).toMatchObject({ reqId: 'req_1', leg: 3, msg: 'from a grandchild' });
  });

  it("judges lines by the child's own level when one is given", () => {
    const { lines, logger } = capturedLogger('logger-test');
    const quieter = new DeferredChildLogger(logger, { reqId: 'req_2' }, { level: 'error' });
    quieter.warn('below the route level');
    expect(quieter.isLevelEnabled('warn')).toBe(false);
    expect(lines).toHaveLength(0);
    quieter.error('at the route level');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'req_2', msg: 'at the route level' });
  });
});
