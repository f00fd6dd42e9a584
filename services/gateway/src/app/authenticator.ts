import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { GatewayStore } from '../store/gateway-store';
import { digestsEqual, hashKey, keyLevelOf, keyShapeValid, type KeyLevel } from '../domain/keys';
import { LinkedMap } from '@mtx/shared/linked-map';

export interface Principal {
  customer_id: string;
  key_id: string;
  level: KeyLevel;
}

interface CacheEntry {
  principal: Principal | null;
  expiresAtMs: number;
}

const cacheEntriesMax = 10_000;

/**
 * Resolves a bearer key to its customer. Results (including misses) are cached briefly, so a flood of bad keys
 * costs one lookup per key per window, not per request. A revocation is announced to every replica, which
 * forgets the key at once (`forgetKey`); `cacheMs` only bounds a revocation whose announcement was lost.
 */
export function createAuthenticator({ store, clock, cacheMs }: { store: GatewayStore; clock: Clock; cacheMs: number }) {
  const cache = new LinkedMap<string, CacheEntry>();
  // A lookup that began before a revocation may have read the key as valid: its answer is used, never cached.
  let revocations = 0;
  // Store lookups made (cache misses), for /metrics and the flood tests: a made-up key must make none.
  let lookups = 0;

  async function lookup(digest: string): Promise<Principal | null> {
    lookups += 1;
    const document = await store.apiKeys.findOne({ _id: digest });
    if (!document || document.revoked_at || !digestsEqual(document._id, digest)) return null;
    return { customer_id: document.customer_id, key_id: document.key_id, level: document.level };
  }

  return {
    async authenticate(authorizationHeader: string | undefined): Promise<Principal> {
      if (!authorizationHeader) throw new AppError('unauthenticated', 'missing API key: send Authorization: Bearer <key>');
      // The scheme is case-insensitive (RFC 9110 §11.1); the key is not.
      const match = /^bearer +([A-Za-z0-9_]{8,200})$/i.exec(authorizationHeader.trim());
      if (!match) throw new AppError('unauthenticated', 'malformed Authorization header: expected Bearer <key>');
      const key = match[1]!;
      const claimedLevel = keyLevelOf(key);
      // A key whose checksum fails was never issued: refused before the cache or the store is touched.
      if (!claimedLevel || !keyShapeValid(key)) throw new AppError('unauthenticated', 'invalid API key');
      const digest = hashKey(key);
      const nowMs = clock.now().getTime();
      let entry = cache.get(digest);
      if (!entry || entry.expiresAtMs <= nowMs) {
        const revocationsBefore = revocations;
        entry = { principal: await lookup(digest), expiresAtMs: nowMs + cacheMs };
        if (revocationsBefore === revocations) {
          if (cache.size >= cacheEntriesMax) cache.shift();
          cache.set(digest, entry);
        }
      }
      if (!entry.principal || entry.principal.level !== claimedLevel) throw new AppError('unauthenticated', 'invalid API key');
      return entry.principal;
    },
    /** Store lookups made so far (cache misses). */
    get lookups(): number {
      return lookups;
    },
    /** A key was revoked (announced by whoever revoked it): it stops working here now. */
    forgetKey(keyId: string): void {
      revocations += 1;
      for (const [digest, entry] of cache) if (entry.principal?.key_id === keyId) cache.delete(digest);
    },
    /** Announcements may have been missed (NATS was down): nothing cached is trusted any more. */
    forget(): void {
      revocations += 1;
      cache.clear();
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
