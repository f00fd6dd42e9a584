import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../src/telemetry/logger';
import { connectNats, type NatsConnection } from '../src/messaging/nats';
import { requestSettlingApplied } from '../src/patches/nats-request-settling';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('nats/lib/nats-base-client/core') as { NatsError: { errorForCode: (...parts: unknown[]) => Error } };

const logger = createLogger('test', { level: 'silent' });
let requester: NatsConnection;
let responder: NatsConnection;

/** Counts the NatsErrors nats.js builds by code while `body` runs. */
async function countBuiltErrors(body: () => Promise<void>): Promise<number> {
  const original = core.NatsError.errorForCode;
  let built = 0;
  core.NatsError.errorForCode = (...parts: unknown[]) => {
    built += 1;
    return original.apply(core.NatsError, parts);
  };
  try {
    await body();
  } finally {
    core.NatsError.errorForCode = original;
  }
  return built;
}

beforeAll(async () => {
  requester = await connectNats(inject('natsUrl'), 'settling-requester', logger);
  responder = await connectNats(inject('natsUrl'), 'settling-responder', logger);
});

afterAll(async () => {
  await requester?.close();
  await responder?.close();
});

describe('NATS requests settled without a throw-away error', () => {
  it('builds no error for answered requests, and still answers each', async () => {
    expect(requestSettlingApplied).toBe(true);
    const subject = `test.settling.${Date.now()}`;
    responder.subscribe(subject, { callback: (_error, message) => message.respond(message.data) });
    await responder.flush();
    let answers: string[] = [];
    const built = await countBuiltErrors(async () => {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, index) => requester.request(subject, new TextEncoder().encode(`q${index}`), { timeout: 2_000 })),
      );
      answers = replies.map((reply) => new TextDecoder().decode(reply.data));
    });
    expect(answers).toEqual(Array.from({ length: 20 }, (_, index) => `q${index}`));
    expect(built).toBe(0);
  });

  it('still fails a request nobody answers in time, and one nobody listens to, each with its code', async () => {
    const silent = `test.settling.silent.${Date.now()}`;
    responder.subscribe(silent, { callback: () => undefined });
    await responder.flush();
    const timedOut = await requester.request(silent, new Uint8Array(), { timeout: 100 }).catch((caught: unknown) => caught);
    expect((timedOut as { code?: string }).code).toBe('TIMEOUT');
    const unheard = await requester
      .request(`test.settling.nobody.${Date.now()}`, new Uint8Array(), { timeout: 2_000 })
      .catch((caught: unknown) => caught);
    expect((unheard as { code?: string }).code).toBe('503');
    // The inbox forgot both: a late answer to either goes nowhere, and the next request is answered as usual.
    const echo = `test.settling.after.${Date.now()}`;
    responder.subscribe(echo, { callback: (_error, message) => message.respond(message.data) });
    await responder.flush();
    const reply = await requester.request(echo, new TextEncoder().encode('again'), { timeout: 2_000 });
    expect(new TextDecoder().decode(reply.data)).toBe('again');
  });
});
