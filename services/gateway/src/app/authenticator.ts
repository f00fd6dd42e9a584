import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { GatewayStore } from '../store/gateway-store';
import { digestsEqual, hashKey, keyLevelOf, keyShapeValid, type KeyLevel } from '../domain/keys';
import { FreshCache } from '@mtx/shared/fresh-cache';

export interface Principal {
  customer_id: string;
  key_id: string;
  level: KeyLevel;
}

const cacheEntriesMax = 10_000;

/**
 * Resolves a bearer key to its customer. Results (including misses) are kept in the shared FreshCache, so a flood
 * of bad keys costs one lookup per key per window, not per request. A revocation is announced to every replica,
 * which then trusts nothing it holds (`forgetKey`: revocations are rare, and a lookup already in flight may have
 * read the key as valid); `cacheMs` only bounds a revocation whose announcement was lost, and while NATS is
 * disconnected the cache is suspended with every other (see followAnnouncements).
 */
export function createAuthenticator({ store, clock, cacheMs }: { store: GatewayStore; clock: Clock; cacheMs: number }) {
  const cache = new FreshCache<Principal | null>({ freshMs: cacheMs, entriesMax: cacheEntriesMax, now: () => clock.now().getTime() });
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
      if (!claimedLevel) throw new AppError('unauthenticated', 'invalid API key');
      const digest = hashKey(key);
      // A key whose checksum fails was never issued: refused before the cache is read or the store touched. A key
      // the cache holds a customer for was found in the store, so it was issued: its checksum (a hash of its own)
      // is not computed again on every request.
      if (!cache.peek(digest) && !keyShapeValid(key)) throw new AppError('unauthenticated', 'invalid API key');
      const principal = await cache.read(digest, () => lookup(digest));
      if (!principal || principal.level !== claimedLevel) throw new AppError('unauthenticated', 'invalid API key');
      return principal;
    },
    /** Store lookups made so far (cache misses). */
    get lookups(): number {
      return lookups;
    },
    /** A key was revoked (announced by whoever revoked it): it stops working here now. */
    forgetKey(_keyId: string): void {
      cache.invalidateAll();
    },
    /** The key cache, for the announcement follower (suspended while revocations may be missed). */
    cache,
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
