import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Listens again on the same port (after stop). */
  start(): Promise<void>;
  /** Closes the listener and every connection through it: the target looks down. */
  stop(): Promise<void>;
  /**
   * Cuts a connection the next time its client sends anything, before the bytes reach the target: a command
   * lost in flight, with no answer. Resolves once it has cut one.
   */
  cutNextRequest(): Promise<void>;
}

/** A TCP proxy to `targetHost:targetPort` on a free local port, for tests that break a store's connections. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  let cutting: (() => void) | undefined;
  const start = async () => {
    server = net.createServer((client) => {
      const upstream = net.connect(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('data', (chunk: Buffer) => {
        if (cutting) {
          const done = cutting;
          cutting = undefined;
          client.destroy();
          upstream.destroy();
          done();
          return;
        }
        if (!upstream.write(chunk)) client.pause();
      });
      upstream.on('drain', () => client.resume());
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  };
  const stop = async () => {
    if (!server) return;
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  await start();
  return {
    get port() {
      return port;
    },
    start,
    stop,
    cutNextRequest: () => new Promise<void>((resolve) => (cutting = resolve)),
  };
}
