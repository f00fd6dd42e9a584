import type { KV, NatsConnection } from 'nats';

/** Exclusive, durable claims on client ids: only the first claim of an id succeeds, across all replicas. */
export interface ClaimStore {
  /** True when this caller is the first to claim `clientId`; false when it was claimed before. */
  claim(clientId: string): Promise<boolean>;
}

/** Characters NATS KV accepts in a key; client ids are built from them. */
export const claimKeyPattern = /^[-/_=.a-zA-Z0-9]+$/;

const wrongLastSequence = 10071;

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

  static async open(connection: NatsConnection, bucket: string, ttlMs: number, owner: string): Promise<KvClaimStore> {
    const kv = await connection.jetstream().views.kv(bucket, { ttl: ttlMs, history: 1 });
    return new KvClaimStore(kv, owner);
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
