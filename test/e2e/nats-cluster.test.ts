import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsClusterSizeFromEnvironment, startNatsCluster, type LocalNatsCluster } from '@mtx/devstack/local';
import { KvClaimStore } from '@mtx/connector-runtime/claims';
import { createLogger } from '@mtx/shared/logger';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';

const logger = createLogger('nats-cluster-test', { level: 'silent' });
let directory: string;
let cluster: LocalNatsCluster;
let connection: NatsConnection;

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-nats-cluster-'));
  cluster = await startNatsCluster(directory, 3);
  connection = await connectNats(cluster.url, 'nats-cluster-test', logger);
}, 60_000);

afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await cluster?.stop();
  if (directory) fs.rmSync(directory, { recursive: true, force: true });
});

/** Retries `work` until it succeeds or `deadlineMs` passes: JetStream answers errors while it elects a new leader. */
async function eventually<T>(work: () => Promise<T>, deadlineMs: number): Promise<T> {
  const startedMs = Date.now();
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() - startedMs > deadlineMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('a local 3-node NATS cluster (NATS_CLUSTER_SIZE=3)', () => {
  it('reads the node count from the environment, refusing what is not a count from 1 to 5', () => {
    expect(natsClusterSizeFromEnvironment({})).toBe(1);
    expect(natsClusterSizeFromEnvironment({ NATS_CLUSTER_SIZE: '3' })).toBe(3);
    for (const wrong of ['0', '6', '2.5', 'three'])
      expect(() => natsClusterSizeFromEnvironment({ NATS_CLUSTER_SIZE: wrong })).toThrow(/NATS_CLUSTER_SIZE/);
  });

  it('runs three routed JetStream servers, each on its own ports and store folder, and gives clients all three URLs', async () => {
    expect(cluster.nodes).toHaveLength(3);
    expect(new Set(cluster.nodes.map((node) => node.port)).size).toBe(3);
    expect(cluster.url.split(',')).toEqual(cluster.nodes.map((node) => node.url));
    for (const node of cluster.nodes) expect(fs.existsSync(path.join(directory, 'nats-cluster', node.name))).toBe(true);
    // The readiness probes may have met API errors while the meta group formed; what must hold once the cluster
    // is handed out is that every node knows the same leader of a three-member meta group.
    const metaGroups = await Promise.all(
      cluster.monitorUrls.map(async (monitorUrl) => {
        const response = await fetch(`${monitorUrl}/jsz`, { signal: AbortSignal.timeout(2_000) });
        return ((await response.json()) as { meta_cluster?: { leader?: string; cluster_size?: number } }).meta_cluster;
      }),
    );
    for (const meta of metaGroups) expect(meta?.cluster_size).toBe(3);
    const leaders = new Set(metaGroups.map((meta) => meta?.leader));
    expect(leaders.size).toBe(1);
    expect(cluster.nodes.map((node) => node.name)).toContain([...leaders][0]);
    const jetstream = await connection.jetstreamManager();
    expect((await jetstream.getAccountInfo()).api.total).toBeGreaterThan(0);
  });

  it('keeps every claim of an R3 claims bucket when the node leading it is killed, and takes new claims once a new leader is elected', async () => {
    const claims = await KvClaimStore.open(connection, {
      bucket: 'claims-cluster-test',
      ttlMs: 60_000,
      owner: 'test',
      replicas: 3,
      logger,
    });
    const jetstream = await connection.jetstreamManager();
    expect((await jetstream.streams.info('KV_claims-cluster-test')).config.num_replicas).toBe(3);
    const before = Array.from({ length: 20 }, (_, index) => `batch-before-${index}`);
    for (const key of before) expect(await claims.claim(key)).toBe(true);

    const leaderName = (await jetstream.streams.info('KV_claims-cluster-test')).cluster?.leader;
    const leader = cluster.nodes.find((node) => node.name === leaderName);
    expect(leader).toBeDefined();
    await leader!.kill();

    // A claim made while the stream has no leader waits for the election (how soon is the fault suite's to
    // judge; it runs alone) instead of failing, and is taken by the new leader.
    expect(await claims.claim('batch-after-0', Date.now() + 30_000)).toBe(true);
    // Nothing claimed before the loss can be claimed again, so no client id reaches a broker twice.
    for (const key of before) expect(await eventually(() => claims.claim(key), 5_000)).toBe(false);

    await leader!.start();
    const newLeader = (await eventually(() => jetstream.streams.info('KV_claims-cluster-test'), 10_000)).cluster?.leader;
    expect(cluster.nodes.map((node) => node.name)).toContain(newLeader);
    expect(await claims.claim('batch-after-0')).toBe(false);
  }, 60_000);
});
