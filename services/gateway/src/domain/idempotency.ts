import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { AppError, isErrorCode } from '@mtx/shared/errors';
import { insertIfAbsent, type GatewayStore } from '../store/gateway-store';

export const idempotencyKeyLengthMax = 128;

/** Canonical JSON: object keys sorted, so the same body sent with keys in another order is the same request. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `<prefix>_` + 20 base62 characters of a digest: the same customer, scope, key and body always name the same
 * resource. A retry after an ambiguous failure (the claim was released) then re-addresses the work already
 * done instead of doing it again: a batch keeps its leg client ids, a server purchase its wallet entry.
 */
export function resourceIdForKey(prefix: string, customerId: string, scope: string, key: string, body: unknown): string {
  const digest = crypto.createHash('sha256').update(`${customerId}\n${scope}\n${key}\n${canonicalJson(body)}`).digest();
  let id = `${prefix}_`;
  for (let index = 0; id.length < prefix.length + 21; index++) id += base62[digest[index]! % 62];
  return id;
}

export interface IdempotentOutcome<T> {
  statusCode: number;
  body: T;
  replay: boolean;
}

/**
 * Stripe-style idempotency, scoped per customer and route. The claim is an insert keyed by
 * customer+route+key, so of any number of concurrent duplicates, across replicas, exactly one runs the work;
 * the others get 409 `idempotency_key_in_progress` and send nothing. The finished response is a second insert
 * under the same key (never an update: FerretDB answers updates by `_id` with a collection scan), and a replay
 * of the same body returns it. Retriable failures (5xx) release the claim so a retry can run.
 */
export function createIdempotency({ store, clock, ttlMs }: { store: GatewayStore; clock: Clock; ttlMs: number }) {
  async function forget(id: string): Promise<void> {
    await store.idempotencyResults.deleteOne({ _id: id });
    await store.idempotency.deleteOne({ _id: id });
  }

  return {
    validateKey(key: string | undefined): string | undefined {
      if (key === undefined) return undefined;
      if (key.length === 0 || key.length > idempotencyKeyLengthMax) {
        throw new AppError('invalid_request', `Idempotency-Key must be 1 to ${idempotencyKeyLengthMax} characters`, { param: 'Idempotency-Key' });
      }
      if (!/^[\x21-\x7e]+$/.test(key)) throw new AppError('invalid_request', 'Idempotency-Key must be printable ASCII without spaces', { param: 'Idempotency-Key' });
      return key;
    },

    async run<T>(customerId: string, scope: string, key: string, body: unknown, work: () => Promise<{ statusCode: number; body: T }>): Promise<IdempotentOutcome<T>> {
      const requestHash = crypto.createHash('sha256').update(`${scope}\n${canonicalJson(body)}`).digest('hex');
      const id = `${customerId}:${scope}:${key}`;
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = clock.now();
        const claimed = await insertIfAbsent(store.idempotency, { _id: id, customer_id: customerId, request_hash: requestHash, created_at: now, expires_at: new Date(now.getTime() + ttlMs) });
        if (claimed) {
          const record = async (statusCode: number, response: unknown) => {
            await insertIfAbsent(store.idempotencyResults, { _id: id, request_hash: requestHash, created_at: clock.now(), status_code: statusCode, response });
          };
          let outcome: { statusCode: number; body: T };
          try {
            outcome = await work();
          } catch (error) {
            const retriable = !(error instanceof AppError) || error.httpStatus >= 500;
            if (retriable) await store.idempotency.deleteOne({ _id: id, request_hash: requestHash }).catch(() => undefined);
            else await record(error.httpStatus, { error: error.toBody() }).catch(() => undefined);
            throw error;
          }
          await record(outcome.statusCode, outcome.body);
          return { ...outcome, replay: false };
        }
        const existing = await store.idempotency.findOne({ _id: id });
        if (!existing) continue;
        if (existing.expires_at.getTime() <= now.getTime()) {
          // Expiry is checked on read (no TTL index on FerretDB); forgetting lets this request claim the key.
          await forget(id);
          continue;
        }
        if (existing.request_hash !== requestHash) {
          throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request body', { param: 'Idempotency-Key' });
        }
        const result = await store.idempotencyResults.findOne({ _id: id });
        if (!result) {
          throw new AppError('idempotency_key_in_progress', 'a request with this Idempotency-Key is still in progress; retry shortly', { param: 'Idempotency-Key' });
        }
        const stored = result.response as { error?: { code: string; message: string; param?: string } } | undefined;
        if (result.status_code >= 400 && stored?.error && isErrorCode(stored.error.code)) {
          throw new AppError(stored.error.code, stored.error.message, stored.error.param === undefined ? {} : { param: stored.error.param });
        }
        const replayed = (stored && typeof stored === 'object' && 'idempotent_replay' in stored ? { ...stored, idempotent_replay: true } : stored) as T;
        return { statusCode: result.status_code, body: replayed, replay: true };
      }
      throw new AppError('idempotency_key_in_progress', 'could not claim the Idempotency-Key; retry shortly', { param: 'Idempotency-Key' });
    },

    /** Deletes expired records (a background job; expiry is also enforced on read, so this only bounds storage). */
    async sweep(): Promise<number> {
      const expired = await store.idempotency.find({ expires_at: { $lte: clock.now() } }, { projection: { _id: 1 } }).limit(1_000).toArray();
      for (const { _id } of expired) await forget(_id);
      return expired.length;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
