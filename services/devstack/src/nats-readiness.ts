import { StorageType, connect } from 'nats';

/** Waits until JetStream answers through `url`: on a cluster, until its nodes have elected a meta leader. */
export async function waitForJetStream(url: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const connection = await connect({ servers: url.split(','), timeout: 500, reconnect: false }).catch(() => undefined);
    try {
      if (connection) {
        await (await connection.jetstreamManager({ timeout: 1_000 })).getAccountInfo();
        return;
      }
    } catch (error) {
      if (Date.now() > until) throw new Error(`JetStream at ${url} did not answer within ${deadlineMs} ms: ${(error as Error).message}`);
    } finally {
      await connection?.close().catch(() => undefined);
    }
    if (Date.now() > until) throw new Error(`NATS at ${url} did not answer within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function waitForNats(url: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      const connection = await connect({ servers: url, timeout: 500, reconnect: false });
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > until) throw new Error(`NATS at ${url} did not answer within ${deadlineMs} ms: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Waits until a stream with one copy on each of `size` nodes can be placed: the sign that every node has joined
 * the JetStream meta group (a meta leader alone answers before its peers are known).
 */
export async function waitForPeers(url: string, size: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  const name = 'MTX_CLUSTER_READY';
  for (;;) {
    const connection = await connect({ servers: url.split(','), timeout: 500, reconnect: false }).catch(() => undefined);
    try {
      if (connection) {
        const manager = await connection.jetstreamManager({ timeout: 2_000 });
        // File storage, as the claims bucket uses: placement then weighs what a real bucket needs.
        await manager.streams.add({
          name,
          subjects: ['mtx.cluster.ready'],
          num_replicas: size,
          storage: StorageType.File,
          max_bytes: 1_048_576,
        });
        await manager.streams.delete(name);
        return;
      }
    } catch (error) {
      if (Date.now() > until)
        throw new Error(
          `the ${size} NATS nodes at ${url} did not form a JetStream cluster within ${deadlineMs} ms: ${(error as Error).message}`,
        );
    } finally {
      await connection?.close().catch(() => undefined);
    }
    if (Date.now() > until) throw new Error(`NATS at ${url} did not answer within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
