import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger, deferredChildLoggerFactory } from '@mtx/shared/logger';

/** The hook listener's Fastify makes each request's child logger only when the request writes a line. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { lines, logger: createLogger('payments-test', { level: 'info' }, stream) };
}

describe('request loggers', () => {
  it("serves as Fastify's child logger factory: a failing request logs with its request id, a quiet one makes no child", async () => {
    const { lines, logger } = capture();
    let made = 0;
    const child = logger.child;
    // Children inherit from their parent, so this counts theirs too and keeps each one's own bindings.
    logger.child = function (this: typeof logger, ...args: Parameters<typeof logger.child>) {
      made += 1;
      return child.apply(this, args);
    } as typeof logger.child;
    const app = Fastify({ loggerInstance: logger, disableRequestLogging: true, childLoggerFactory: deferredChildLoggerFactory });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      request.log.warn({ why: 'asked' }, 'loud request');
      return { ok: true };
    });
    await app.ready();
    const before = made;
    expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
    expect(made).toBe(before);
    const loud = await app.inject({ method: 'GET', url: '/loud' });
    expect(loud.statusCode).toBe(200);
    expect(made).toBe(before + 1);
    expect(lines.find((line) => line.msg === 'loud request')).toMatchObject({ why: 'asked', reqId: expect.any(String) });
    await app.close();
  });
});
