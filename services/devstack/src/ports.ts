import net from 'node:net';

function bindable(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

// Below Linux's ephemeral range (32768–60999 by default): the kernel hands those out as source ports of
// outgoing connections, so a port found free there can be taken by any client socket before our child binds
// it (seen as EADDRINUSE in clean-clone runs with many test processes connecting at once).
const rangeStart = 20_000;
const rangeEnd = 32_000;
const handedOut = new Set<number>();

/**
 * A free loopback port for a child to bind soon. Drawn at random outside the ephemeral range and never the
 * same twice in one process; the kernel's own choice only if that range is exhausted.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 64; attempt++) {
    const candidate = rangeStart + Math.floor(Math.random() * (rangeEnd - rangeStart));
    if (handedOut.has(candidate)) continue;
    if ((await bindable(candidate)) !== null) {
      handedOut.add(candidate);
      return candidate;
    }
  }
  const port = await bindable(0);
  if (port === null) throw new Error('no free loopback port');
  handedOut.add(port);
  return port;
}

/** Resolves once a TCP connection to host:port succeeds, or rejects at the deadline. */
export async function waitForPort(port: number, deadlineMs: number, host = '127.0.0.1'): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host });
      socket.setTimeout(500);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nothing answered on ${host}:${port} within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
