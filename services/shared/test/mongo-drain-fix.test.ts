import { EventEmitter } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MongoNetworkError } from 'mongodb';
import { connectMongo, type MongoClient } from '../src/store/mongo';

// The driver's internals the fix is about: the utils module whose `once` it wraps, and the connection factory
// its pool uses. Both are plain CommonJS modules of the driver package.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const driverUtilities = require('mongodb/lib/utils') as {
  once: (emitter: NodeJS.EventEmitter, name: string) => Promise<unknown>;
  ns: (namespace: string) => unknown;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const driverConnect = require('mongodb/lib/cmap/connect') as { connect: (options: object) => Promise<DriverConnection> };

interface DriverConnection {
  socket: net.Socket;
  closed: boolean;
  command(namespace: unknown, command: object, options: object): Promise<unknown>;
  destroy(): void;
}

const settledWithinMs = 2_000;

/** What became of a promise within the bound: its value, its error, or 'pending' (a hang). */
async function outcomeOf(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), settledWithinMs)));
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A wait that must fail: a network error, not a hang. */
async function expectNetworkError(waiting: Promise<unknown>): Promise<void> {
  const outcome = await outcomeOf(waiting);
  expect(outcome).not.toBe('pending');
  expect((outcome as { error?: unknown }).error).toBeInstanceOf(MongoNetworkError);
}

describe('the mongodb driver drain fix', () => {
  let server: net.Server;
  let port: number;
  const peers: net.Socket[] = [];

  beforeAll(async () => {
    // Accepts and never reads, so a large enough write fills the buffers and waits for `drain`.
    server = net.createServer((socket) => {
      socket.pause();
      peers.push(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    for (const peer of peers) peer.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  async function connected(): Promise<net.Socket> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    return socket;
  }

  /** A connected socket with more written than the peer (which never reads) takes: writes now wait for drain. */
  async function backedUp(): Promise<net.Socket> {
    const socket = await connected();
    let accepted = true;
    for (let written = 0; accepted && written < 512; written += 1) accepted = socket.write(Buffer.alloc(1 << 20));
    expect(accepted).toBe(false);
    return socket;
  }

  it('fails a wait for drain on a socket already destroyed, as a network error', async () => {
    const socket = await connected();
    socket.destroy();
    await expectNetworkError(driverUtilities.once(socket, 'drain'));
  });

  it('fails a wait for drain when the socket closes without an error while waiting', async () => {
    const socket = await backedUp();
    const waiting = driverUtilities.once(socket, 'drain');
    socket.destroy();
    await expectNetworkError(waiting);
  });

  it('still resolves on drain and leaves other events alone', async () => {
    const socket = await backedUp();
    const waiting = driverUtilities.once(socket, 'drain');
    for (const peer of peers) peer.resume();
    expect(await outcomeOf(waiting)).toEqual({ value: undefined });
    socket.destroy();
    const emitter = new EventEmitter();
    const other = driverUtilities.once(emitter, 'drain');
    emitter.emit('drain', 'not a socket');
    expect(await outcomeOf(other)).toEqual({ value: 'not a socket' });
  });
});

describe('a driver connection whose socket the store closed', () => {
  let client: MongoClient;

  beforeAll(async () => {
    client = await connectMongo(inject('mongodbUrl'));
  });

  afterAll(async () => {
    await client?.close();
  });

  it('fails a command written in the window before its close is handled, instead of never settling', async () => {
    const options = client.options as unknown as { hosts: unknown[] };
    const connection = await driverConnect.connect({
      ...client.options,
      hostAddress: options.hosts[0],
      id: 'drain-fix-test',
      generation: 0,
    });
    expect(connection.closed).toBe(false);
    // A store killed under the connection: the socket is ended and destroyed; its close is handled a tick later.
    connection.socket.end();
    connection.socket.destroy();
    await expectNetworkError(connection.command(driverUtilities.ns('admin.$cmd'), { ping: 1 }, {}));
    connection.destroy();
  });
});
