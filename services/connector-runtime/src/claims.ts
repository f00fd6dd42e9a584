import type { KV, NatsConnection } from 'nats';
import type { Logger } from '@mtx/shared/logger';

/** Exclusive, durable claims on client ids: only the first claim of an id succeeds, across all replicas. */
export interface ClaimStore {
  /** True when this caller is the first to claim `clientId`; false when it was claimed before. */
  claim(clientId: string): Promise<boolean>;
}

/** Characters NATS KV accepts in a key; client ids are built from them. */
export const claimKeyPattern = /^[-/_=.a-zA-Z0-9]+$/;

const wrongLastSequence = 10071;
/** JetStream's answers to more replicas than it has servers for: no cluster at all, or too few peers. */
const replicasNotSupported = new Set([10074, 10023]);

/**
 * Claims kept in a JetStream key-value bucket. `put` with an expected last sequence of 0 is a create that the
 * server applies atomically: of any number of connector replicas racing on one client id, exactly one wins,
 * and the claim survives connector restarts. Entries expire after `ttlMs` (far longer than any batch lives).
 */
export class KvClaimStore implements ClaimStore {
  private constructor(
    private readonly kv: KV,
    private readonly owner: string,
  ) {}

  /**
   * Opens (or creates) the bucket with `replicas` copies (CONNECTOR_CLAIMS_REPLICAS: 3 on a 3-node cluster, so
   * losing a node loses no claim). A count the deployment cannot hold refuses to start; a bucket that already
   * exists with another count is used as it is, with a warning (JetStream does not change it on open).
   */
  static async open(
    connection: NatsConnection,
    options: { bucket: string; ttlMs: number; owner: string; replicas: number; logger: Logger },
  ): Promise<KvClaimStore> {
    let kv: KV;
    try {
      kv = await connection.jetstream().views.kv(options.bucket, { ttl: options.ttlMs, history: 1, replicas: options.replicas });
    } catch (error) {
      const apiError = (error as { api_error?: { err_code?: number; description?: string } }).api_error;
      if (apiError?.err_code !== undefined && replicasNotSupported.has(apiError.err_code)) {
        throw new Error(
          `CONNECTOR_CLAIMS_REPLICAS=${options.replicas} is more than this NATS deployment holds (${apiError.description ?? (error as Error).message}): set it to the number of JetStream servers or fewer (1 on a single server)`,
        );
      }
      throw error;
    }
    const actual = (await kv.status()).replicas;
    if (actual !== options.replicas) {
      options.logger.warn(
        { bucket: options.bucket, replicas: actual, setting: options.replicas },
        `the claims bucket exists with ${actual} replica(s), not CONNECTOR_CLAIMS_REPLICAS=${options.replicas}; it is used as it is (change it with: nats stream edit KV_${options.bucket} --replicas ${options.replicas})`,
      );
    }
    return new KvClaimStore(kv, options.owner);
  }

  async claim(clientId: string): Promise<boolean> {
    if (!claimKeyPattern.test(clientId)) throw new Error(`client id ${JSON.stringify(clientId)} is not a valid claim key`);
    try {
      await this.kv.put(clientId, new TextEncoder().encode(JSON.stringify({ by: this.owner, at: Date.now() })), { previousSeq: 0 });
      return true;
    } catch (error) {
      if ((error as { api_error?: { err_code?: number } }).api_error?.err_code === wrongLastSequence) return false;
      throw error;
    }
  }
}
