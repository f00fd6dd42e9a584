import { AppError } from '@mtx/shared/errors';
import { insertIfAbsent, type GatewayStore } from '../store/gateway-store';
import { generateKey, hashKey, keyHint, newCustomerId, newKeyId, type KeyLevel } from '../domain/keys';

export interface IssuedKey {
  key_id: string;
  key: string;
  level: KeyLevel;
  customer_id: string;
}

export async function createCustomer(
  store: GatewayStore,
  name: string,
  clock: { now(): Date } = { now: () => new Date() },
): Promise<{ customer_id: string; name: string }> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new AppError('invalid_request', 'name must be 1 to 200 characters', { param: 'name' });
  const customerId = newCustomerId();
  await store.customers.insertOne({ _id: customerId, name: trimmed, created_at: clock.now() });
  return { customer_id: customerId, name: trimmed };
}

export async function issueKey(
  store: GatewayStore,
  customerId: string,
  level: KeyLevel,
  clock: { now(): Date } = { now: () => new Date() },
): Promise<IssuedKey> {
  const customer = await store.customers.findOne({ _id: customerId });
  if (!customer) throw new AppError('not_found', `no customer ${customerId}`, { param: 'customer' });
  const key = generateKey(level);
  const digest = hashKey(key);
  const keyId = newKeyId();
  // The id pointer goes first: a key that exists is always revocable by its id.
  await store.apiKeyIds.insertOne({ _id: keyId, digest, customer_id: customerId });
  const inserted = await insertIfAbsent(store.apiKeys, {
    _id: digest,
    key_id: keyId,
    customer_id: customerId,
    level,
    hint: keyHint(key),
    created_at: clock.now(),
    revoked_at: null,
  });
  if (!inserted) throw new AppError('conflict', 'key collision; try again');
  return { key_id: keyId, key, level, customer_id: customerId };
}

/** Revokes by key id (`key_…`) or by the key itself. */
export async function revokeKey(
  store: GatewayStore,
  keyOrId: string,
  clock: { now(): Date } = { now: () => new Date() },
): Promise<{ key_id: string; customer_id: string; revoked_at: string }> {
  let digest: string;
  if (keyOrId.startsWith('key_')) {
    const pointer = await store.apiKeyIds.findOne({ _id: keyOrId });
    if (!pointer) throw new AppError('not_found', `no key ${keyOrId}`, { param: 'key' });
    digest = pointer.digest;
  } else {
    digest = hashKey(keyOrId);
  }
  const existing = await store.apiKeys.findOne({ _id: digest });
  if (!existing) throw new AppError('not_found', 'no such key', { param: 'key' });
  const revokedAt = existing.revoked_at ?? clock.now();
  await store.apiKeys.updateOne({ _id: digest }, { $set: { revoked_at: revokedAt } });
  return { key_id: existing.key_id, customer_id: existing.customer_id, revoked_at: revokedAt.toISOString() };
}
