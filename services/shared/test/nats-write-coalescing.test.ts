import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../src/telemetry/logger';
import { connectNats, type NatsConnection } from '../src/messaging/nats';
import { writesCoalesced } from '../src/patches/nats-write-coalescing';

const logger = createLogger('test', { level: 'silent' });
let publisher: NatsConnection;
let subscriber: NatsConnection;

function socketOf(connection: NatsConnection): Socket {
  return (connection as unknown as { protocol: { transport: { socket: Socket } } }).protocol.transport.socket;
}

/** Counts the socket's hand-overs to the kernel (Node calls _write or _writev once per system call it makes). */
function countWrites(socket: Socket): { count: () => number; restore: () => void } {
  const target = socket as unknown as Record<'_write' | '_writev', (...parts: unknown[]) => unknown>;
  const originals = { _write: target._write, _writev: target._writev };
  let count = 0;
  for (const name of ['_write', '_writev'] as const) {
    const original = originals[name];
    target[name] = (...parts: unknown[]) => {
      count += 1;
      return original.apply(socket, parts);
    };
  }
  return {
    count: () => count,
    restore: () => Object.assign(target, originals),
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

beforeAll(async () => {
  publisher = await connectNats(inject('natsUrl'), 'coalescing-publisher', logger);
  subscriber = await connectNats(inject('natsUrl'), 'coalescing-subscriber', logger);
});

afterAll(async () => {
  await publisher?.close();
  await subscriber?.close();
});

describe('NATS writes coalesced per event-loop turn', () => {
  it('sends what one turn publishes from many microtask checkpoints in one write, in order', async () => {
    expect(writesCoalesced).toBe(true);
    const subject = `test.coalesce.${Date.now()}`;
    const received: string[] = [];
    const all = new Promise<void>((resolve) => {
      subscriber.subscribe(subject, {
        callback: (_error, message) => {
          received.push(new TextDecoder().decode(message.data));
          if (received.length === 20) resolve();
        },
      });
    });
    await subscriber.flush();
    await nextTurn();
    const writes = countWrites(socketOf(publisher));
    try {
      // nats.js flushes in a microtask: without coalescing every await here is a write of its own.
      for (let index = 0; index < 20; index += 1) {
        publisher.publish(subject, new TextEncoder().encode(String(index)));
        await Promise.resolve();
        await Promise.resolve();
      }
      await nextTurn();
      expect(writes.count()).toBe(1);
    } finally {
      writes.restore();
    }
    await all;
    expect(received).toEqual(Array.from({ length: 20 }, (_, index) => String(index)));
  });

  it('hands a turn’s writes to the kernel by the end of that turn, turn after turn', async () => {
    const socket = socketOf(publisher);
    const writes = countWrites(socket);
    try {
      for (let turn = 1; turn <= 3; turn += 1) {
        publisher.publish(`test.coalesce.turns.${turn}`, new Uint8Array(8));
        // This turn's check phase ran our immediate before the uncork queued after it; the next turn sees both.
        await nextTurn();
        await nextTurn();
        expect(writes.count()).toBe(turn);
        expect(socket.writableLength).toBe(0);
      }
    } finally {
      writes.restore();
    }
  });

  it('keeps requests, flush and drain working', async () => {
    const subject = `test.coalesce.echo.${Date.now()}`;
    subscriber.subscribe(subject, { callback: (_error, message) => message.respond(message.data) });
    await subscriber.flush();
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) => publisher.request(subject, new TextEncoder().encode(`r${index}`), { timeout: 2_000 })),
    );
    expect(replies.map((reply) => new TextDecoder().decode(reply.data))).toEqual(Array.from({ length: 10 }, (_, index) => `r${index}`));
    await publisher.flush();

    // A connection drained right after publishing still delivers what it published.
    const drained = await connectNats(inject('natsUrl'), 'coalescing-drained', logger);
    const lastSubject = `test.coalesce.drain.${Date.now()}`;
    const delivered = new Promise<string>((resolve) => {
      subscriber.subscribe(lastSubject, { max: 1, callback: (_error, message) => resolve(new TextDecoder().decode(message.data)) });
    });
    await subscriber.flush();
    drained.publish(lastSubject, new TextEncoder().encode('last words'));
    await drained.drain();
    expect(await delivered).toBe('last words');
  });
});
