import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { AppError, isErrorCode } from '@mtx/shared/errors';
import { insertIfAbsent, type GatewayStore, type IdempotencyDocument } from '../store/gateway-store';

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
const resourceIdCharacters = 20;

/** `<prefix>_` + 20 random base62 characters (about 119 bits): the id of the resource a key's request makes. */
export function mintResourceId(prefix: string): string {
  // 248 is the largest multiple of 62 below 256: rejecting bytes past it keeps every character equally likely.
  let id = `${prefix}_`;
  while (id.length < prefix.length + 1 + resourceIdCharacters) {
    for (const byte of crypto.randomBytes(32)) {
      if (byte < 248 && id.length < prefix.length + 1 + resourceIdCharacters) id += base62[byte % 62];
    }
  }
  return id;
}

export interface IdempotentOutcome<T> {
  statusCode: number;
  body: T;
  replay: boolean;
}

export interface IdempotentRequest {
  customerId: string;
  /** The route: part of the request's fingerprint, so the same key on another route is a different request. */
  scope: string;
  key: string;
  body: unknown;
  /** Prefix of the resource id minted when the key is first claimed (`bat`, `srv`). */
  resourcePrefix: string;
}

/**
 * Stripe-style idempotency, scoped per customer (one key names one request, whatever the route).
 *
 * The claim is an insert keyed by customer+key, so of any number of concurrent duplicates, across replicas,
 * exactly one holds it and runs the work; the others get 409 `idempotency_key_in_progress` and send nothing.
 * The claim carries a resource id minted at random when it is first made (a batch id, a server id), and every
 * attempt under the key works on that id. A retriable failure (5xx: a deadline, a backend down) releases the
 * claim but keeps the record and its id: the outcome is unknown, the work may have happened, and a retry that
 * takes the claim over re-addresses the same resource (same leg client ids), so nothing is done twice. A claim
 * whose holder vanished (a gateway killed mid-request) is taken over once its lease has passed. Once the key's
 * lifetime is over the record is forgotten, and the next request with the key is new, with a new id.
 *
 * The finished response is stored under the claim's id and resource id, so a response can never be served for
 * a later claim of the same key.
 */
export function createIdempotency({
  store,
  clock,
  ttlMs,
  leaseMs = 60_000,
}: {
  store: GatewayStore;
  clock: Clock;
  ttlMs: number;
  leaseMs?: number;
}) {
  const resultIdOf = (record: Pick<IdempotencyDocument, '_id' | 'resource_id'>) => `${record._id}:${record.resource_id}`;

  /** Forgets an expired record, only if it is still the same generation (another request may have re-claimed). */
  async function forget(record: Pick<IdempotencyDocument, '_id' | 'resource_id'>): Promise<void> {
    await store.idempotency.deleteOne({ _id: record._id, resource_id: record.resource_id });
    await store.idempotencyResults.deleteMany({ _id: { $in: [resultIdOf(record), record._id] } });
  }

  function fingerprint(scope: string, body: unknown): string {
    return crypto
      .createHash('sha256')
      .update(`${scope}\n${canonicalJson(body)}`)
      .digest('hex');
  }

  async function replayOrRefuse<T>(record: IdempotencyDocument, requestHash: string): Promise<IdempotentOutcome<T> | 'takeover' | 'busy'> {
    if (record.request_hash !== requestHash) {
      throw new AppError(
        'idempotency_key_reused',
        'this Idempotency-Key was used with a different request (another body or another route)',
        { param: 'Idempotency-Key' },
      );
    }
    const result = await store.idempotencyResults.findOne({ _id: resultIdOf(record) });
    if (result) {
      const stored = result.response as { error?: { code: string; message: string; param?: string } } | undefined;
      if (result.status_code >= 400 && stored?.error && isErrorCode(stored.error.code)) {
        throw new AppError(stored.error.code, stored.error.message, stored.error.param === undefined ? {} : { param: stored.error.param });
      }
      const replayed = (
        stored && typeof stored === 'object' && 'idempotent_replay' in stored ? { ...stored, idempotent_replay: true } : stored
      ) as T;
      return { statusCode: result.status_code, body: replayed, replay: true };
    }
    const leaseOver = record.held_since !== null && record.held_since.getTime() + leaseMs <= clock.now().getTime();
    return record.holder === null || leaseOver ? 'takeover' : 'busy';
  }

  async function execute<T>(
    record: IdempotencyDocument,
    holder: string,
    work: (resourceId: string) => Promise<{ statusCode: number; body: T }>,
  ): Promise<IdempotentOutcome<T>> {
    const finish = async (statusCode: number, response: unknown) => {
      await insertIfAbsent(store.idempotencyResults, {
        _id: resultIdOf(record),
        request_hash: record.request_hash,
        created_at: clock.now(),
        status_code: statusCode,
        response,
      });
    };
    let outcome: { statusCode: number; body: T };
    try {
      outcome = await work(record.resource_id);
    } catch (error) {
      const retriable = !(error instanceof AppError) || error.httpStatus >= 500;
      if (retriable)
        await store.idempotency.updateOne({ _id: record._id, holder }, { $set: { holder: null, held_since: null } }).catch(() => undefined);
      else await finish(error.httpStatus, { error: error.toBody() }).catch(() => undefined);
      throw error;
    }
    await finish(outcome.statusCode, outcome.body);
    return { ...outcome, replay: false };
  }

  return {
    validateKey(key: string | undefined): string | undefined {
      if (key === undefined) return undefined;
      if (key.length === 0 || key.length > idempotencyKeyLengthMax) {
        throw new AppError('invalid_request', `Idempotency-Key must be 1 to ${idempotencyKeyLengthMax} characters`, {
          param: 'Idempotency-Key',
        });
      }
      if (!/^[\x21-\x7e]+$/.test(key))
        throw new AppError('invalid_request', 'Idempotency-Key must be printable ASCII without spaces', { param: 'Idempotency-Key' });
      return key;
    },

    async run<T>(
      request: IdempotentRequest,
      work: (resourceId: string) => Promise<{ statusCode: number; body: T }>,
    ): Promise<IdempotentOutcome<T>> {
      const requestHash = fingerprint(request.scope, request.body);
      const id = `${request.customerId}:${request.key}`;
      const holder = crypto.randomUUID();
      for (let attempt = 0; attempt < 4; attempt++) {
        const now = clock.now();
        const fresh: IdempotencyDocument = {
          _id: id,
          customer_id: request.customerId,
          scope: request.scope,
          request_hash: requestHash,
          resource_id: mintResourceId(request.resourcePrefix),
          created_at: now,
          expires_at: new Date(now.getTime() + ttlMs),
          holder,
          held_since: now,
        };
        if (await insertIfAbsent(store.idempotency, fresh)) return execute(fresh, holder, work);
        const existing = await store.idempotency.findOne({ _id: id });
        if (!existing) continue;
        if (existing.expires_at.getTime() <= now.getTime() || existing.resource_id === undefined) {
          // Expiry is checked on read (no TTL index on FerretDB). Records without a resource id predate it.
          await forget(existing);
          continue;
        }
        const decision = await replayOrRefuse<T>(existing, requestHash);
        if (decision === 'busy')
          throw new AppError('idempotency_key_in_progress', 'a request with this Idempotency-Key is still in progress; retry shortly', {
            param: 'Idempotency-Key',
          });
        if (decision !== 'takeover') return decision;
        const taken = await store.idempotency.updateOne(
          { _id: id, resource_id: existing.resource_id, holder: existing.holder },
          { $set: { holder, held_since: now } },
        );
        if (taken.modifiedCount === 1) return execute({ ...existing, holder, held_since: now }, holder, work);
      }
      throw new AppError('idempotency_key_in_progress', 'could not claim the Idempotency-Key; retry shortly', { param: 'Idempotency-Key' });
    },

    /**
     * Runs `work` under the Idempotency-Key when the request sent one (validated here), plainly otherwise. Keyed,
     * the work gets the resource id its key record holds; unkeyed, none, and it mints its own.
     */
    async runWhenKeyed<T>(
      rawKey: unknown,
      request: Omit<IdempotentRequest, 'key'>,
      work: (resourceId: string | undefined) => Promise<{ statusCode: number; body: T }>,
    ): Promise<{ statusCode: number; body: T }> {
      const key = this.validateKey(typeof rawKey === 'string' ? rawKey : undefined);
      if (key === undefined) return work(undefined);
      const outcome = await this.run({ ...request, key }, work);
      return { statusCode: outcome.statusCode, body: outcome.body };
    },

    /** Deletes expired records (a background job; expiry is also enforced on read, so this only bounds storage). */
    async sweep(): Promise<number> {
      const expired = await store.idempotency
        .find({ expires_at: { $lte: clock.now() } }, { projection: { _id: 1, resource_id: 1 } })
        .limit(1_000)
        .toArray();
      for (const record of expired) await forget(record);
      return expired.length;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
