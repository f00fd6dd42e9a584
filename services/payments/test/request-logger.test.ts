import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { deferredChildLoggerFactory } from '@mtx/shared/logger';
import { capturedLogger } from '@mtx/shared/testing';

/** The hook listener's Fastify makes each request's child logger only when the request writes a line. */
describe('request loggers', () => {
  it("serves as Fastify's child logger factory: a failing request logs with its request id, a quiet one makes no child", async () => {
    const { lines, logger, childrenMade } = capturedLogger('payments-test');
    const app = Fastify({ loggerInstance: logger, disableRequestLogging: true, childLoggerFactory: deferredChildLoggerFactory });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      request.log.warn({ why: 'asked' }, 'loud request');
      return { ok: true };
    });
    await app.ready();
    const before = childrenMade();
    expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
    expect(childrenMade()).toBe(before);
    const loud = await app.inject({ method: 'GET', url: '/loud' });
    expect(loud.statusCode).toBe(200);
    expect(childrenMade()).toBe(before + 1);
    expect(lines.find((line) => line.msg === 'loud request')).toMatchObject({ why: 'asked', reqId: expect.any(String) });
    await app.close();
  });
});
