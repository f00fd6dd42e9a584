import type { Collection, Db } from '@mtx/shared/mongo';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import type { KeyLevel } from '../domain/keys';

export interface CustomerDocument {
  _id: string;
  name: string;
  created_at: Date;
}

/** `_id` is the SHA-256 of the key, so authentication is one `_id` lookup (the only indexed query on FerretDB). */
export interface ApiKeyDocument {
  _id: string;
  key_id: string;
  customer_id: string;
  level: KeyLevel;
  hint: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** Pointer from a key id to its digest, so a key can be revoked by id without a scan. */
export interface ApiKeyIdDocument {
  _id: string;
  digest: string;
  customer_id: string;
}

/** One Idempotency-Key of one customer: `_id` is `<customer_id>:<key>`. */
export interface IdempotencyDocument {
  _id: string;
  customer_id: string;
  /** Route of the request that first claimed the key (its fingerprint covers it too). */
  scope: string;
  /** SHA-256 of route + canonical body. */
  request_hash: string;
  /** The batch or server id every attempt under this key works on; minted at random when first claimed. */
  resource_id: string;
  created_at: Date;
  expires_at: Date;
  /** Token of the attempt running the work; null once a retriable failure released the claim. */
  holder: string | null;
  held_since: Date | null;
}

/** The stored outcome of a claim: `_id` is `<claim _id>:<resource_id>`, so it belongs to one generation of the key. */
export interface IdempotencyResultDocument {
  _id: string;
  request_hash: string;
  created_at: Date;
  status_code: number;
  response: unknown;
}

/** One admitted request of a customer's bucket: `<bucket>:<customer>:<minute>:s<n>` (app/rate-limiter.ts). */
export interface RateLimitSlotDocument {
  _id: string;
  /** The minute it was claimed in, for the sweep. */
  window: number;
  /** When it was admitted, in ms since the epoch. */
  at?: number;
}

export interface GatewayStore {
  customers: Collection<CustomerDocument>;
  apiKeys: Collection<ApiKeyDocument>;
  apiKeyIds: Collection<ApiKeyIdDocument>;
  idempotency: Collection<IdempotencyDocument>;
  idempotencyResults: Collection<IdempotencyResultDocument>;
  rateLimitSlots: Collection<RateLimitSlotDocument>;
  database: Db;
}

export function createGatewayStore(database: Db): GatewayStore {
  return {
    database,
    customers: database.collection<CustomerDocument>('customers'),
    apiKeys: database.collection<ApiKeyDocument>('api_keys'),
    apiKeyIds: database.collection<ApiKeyIdDocument>('api_key_ids'),
    idempotency: database.collection<IdempotencyDocument>('idempotency_keys'),
    idempotencyResults: database.collection<IdempotencyResultDocument>('idempotency_results'),
    rateLimitSlots: database.collection<RateLimitSlotDocument>('rate_limit_slots'),
  };
}

export async function ensureGatewayIndexes(store: GatewayStore): Promise<void> {
  // Creating the collections up front keeps the first request from paying for it; _id is the only index we query.
  for (const collection of [
    store.customers,
    store.apiKeys,
    store.apiKeyIds,
    store.idempotency,
    store.idempotencyResults,
    store.rateLimitSlots,
  ]) {
    await store.database.createCollection(collection.collectionName).catch((error: { code?: number }) => {
      if (error?.code !== 48) throw error; // 48: NamespaceExists
    });
  }
}

export { insertIfAbsent, isDuplicateKeyError };
