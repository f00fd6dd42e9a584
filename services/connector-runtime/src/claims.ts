import { randomUUID } from 'node:crypto';
import { ErrorCode, type KV, type NatsConnection } from 'nats';
import { isAlreadyStored, publishCreateOnly } from '@mtx/shared/jetstream-create-only';
import { explainReplicaRefusal } from '@mtx/shared/jetstream-replicas';
import type { Logger } from '@mtx/shared/logger';

/** Exclusive, durable claims on client ids: only the first claim of an id succeeds, across all replicas. */
export interface ClaimStore {
  /**
   * True when this caller is the first to claim `clientId`; false when it was claimed before. While the store
   * cannot take the claim for a passing reason, it tries again until `retryUntilUnixMs` (default: no retry).
   */
  claim(clientId: string, retryUntilUnixMs?: number): Promise<boolean>;
}

/** Characters NATS KV accepts in a key; client ids are built from them. */
export const claimKeyPattern = /^[-/_=.a-zA-Z0-9]+$/;

/** Deadline of one claim write; a claim is one small R1/R3 append, so past this the stream is not answering. */
const claimCallTimeoutMs = 1_500;
const retryPauseMinMs = 25;
const retryPauseMaxMs = 250;

const claimEncoder = new TextEncoder();
const claimDecoder = new TextDecoder();

/** What a claim store needs of a bucket: a create-only put (expected last sequence 0) and a read. */
export type ClaimBucket = Pick<KV, 'put' | 'get'>;

/** The bucket's put as one create-only publish to the key's subject (its errors keep kv.put's shapes). */
function createOnlyBucket(connection: NatsConnection, kv: KV, bucket: string): ClaimBucket {
  const subjectPrefix = `$KV.${bucket}.`;
  return {
    get: (key) => kv.get(key),
    async put(key, value) {
      await publishCreateOnly(connection, subjectPrefix + key, value as Uint8Array, claimCallTimeoutMs);
      return 0;
    },
  };
}

/**
 * Claims kept in a JetStream key-value bucket. `put` with an expected last sequence of 0 is a create that the
 * server applies atomically: of any number of connector replicas racing on one client id, exactly one wins,
 * and the claim survives connector restarts. Entries expire after `ttlMs` (far longer than any batch lives).
 */
export class KvClaimStore implements ClaimStore {
  private constructor(
    private readonly kv: ClaimBucket,
    private readonly owner: string,
  ) {}

  /** Claims in a bucket already opened (tests pass a bucket whose answers they choose). */
  static over(kv: ClaimBucket, owner: string): KvClaimStore {
    return new KvClaimStore(kv, owner);
  }

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
      kv = await connection
        .jetstream({ timeout: claimCallTimeoutMs })
        .views.kv(options.bucket, { ttl: options.ttlMs, history: 1, replicas: options.replicas });
    } catch (error) {
      throw explainReplicaRefusal(error, 'CONNECTOR_CLAIMS_REPLICAS', options.replicas);
    }
    const actual = (await kv.status()).replicas;
    if (actual !== options.replicas) {
      options.logger.warn(
        { bucket: options.bucket, replicas: actual, setting: options.replicas },
        `the claims bucket exists with ${actual} replica(s), not CONNECTOR_CLAIMS_REPLICAS=${options.replicas}; it is used as it is (change it with: nats stream edit KV_${options.bucket} --replicas ${options.replicas})`,
      );
    }
    return new KvClaimStore(createOnlyBucket(connection, kv, options.bucket), options.owner);
  }

  /**
   * Retries what is known not to have been written, and what may have been: JetStream answers "no responders"
   * while a stream elects a new leader (4 to 9 s after its leader's server dies, whatever the client does), and
   * a write that timed out may have landed. Each claim carries its own nonce, so a retry that finds the key
   * taken tells its own earlier write (claimed) from another replica's (duplicate).
   */
  async claim(clientId: string, retryUntilUnixMs = 0): Promise<boolean> {
    if (!claimKeyPattern.test(clientId)) throw new Error(`client id ${JSON.stringify(clientId)} is not a valid claim key`);
    const nonce = randomUUID();
    const value = claimEncoder.encode(JSON.stringify({ by: this.owner, at: Date.now(), nonce }));
    let mayHaveWritten = false;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.kv.put(clientId, value, { previousSeq: 0 });
        return true;
      } catch (error) {
        if (isAlreadyStored(error)) return mayHaveWritten ? await this.isOwnClaim(clientId, nonce) : false;
        const code = (error as { code?: string }).code;
        const passing = code === ErrorCode.NoResponders || code === ErrorCode.Timeout;
        if (code === ErrorCode.Timeout) mayHaveWritten = true;
        const pauseMs = Math.min(retryPauseMaxMs, retryPauseMinMs * 2 ** attempt);
        if (!passing || Date.now() + pauseMs >= retryUntilUnixMs) throw error;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
  }

  private async isOwnClaim(clientId: string, nonce: string): Promise<boolean> {
    const entry = await this.kv.get(clientId);
    if (!entry) return false;
    try {
      return (JSON.parse(claimDecoder.decode(entry.value)) as { nonce?: string }).nonce === nonce;
    } catch {
      return false;
    }
  }
}
