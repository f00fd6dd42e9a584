import type { NatsConnection } from 'nats';
import { connectorMetrics } from './metrics';

/** How often the claims bucket's copies are counted: a lost node shows within this, at one small request. */
const checkIntervalMs = 30_000;
/** Deadline of one stream-info request; past it the stream is taken as having no current copy. */
const checkTimeoutMs = 2_000;

/**
 * Counts the claims bucket's current copies (its stream's leader plus each follower the leader reports current)
 * into `mtx.connector.claims.replicas`, beside the setting: fewer copies than CONNECTOR_CLAIMS_REPLICAS means a
 * node is lost or lagging, and one more loss could lose claims (a leg sent twice on a retry). A stream that does
 * not answer counts 0. Stopped with the connector.
 */
export function watchClaimsReplicas(connection: NatsConnection, bucket: string, setting: number): { stop(): void } {
  const attributes = { 'mtx.bucket': bucket };
  connectorMetrics.claimsReplicasSetting.record(setting, attributes);
  let stopped = false;
  const check = async () => {
    let current = 0;
    try {
      const manager = await connection.jetstreamManager({ timeout: checkTimeoutMs });
      const info = await manager.streams.info(`KV_${bucket}`);
      // A server outside a cluster reports no cluster: its one copy answered. In a cluster, a stream without a
      // leader takes no write, whatever its followers hold.
      const { cluster } = info;
      if (!cluster) current = 1;
      else if (cluster.leader) current = 1 + (cluster.replicas ?? []).filter((peer) => peer.current && !peer.offline).length;
    } catch {
      current = 0;
    }
    if (!stopped) connectorMetrics.claimsReplicas.record(current, attributes);
  };
  void check();
  const timer = setInterval(() => void check(), checkIntervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
