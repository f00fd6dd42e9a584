import { describe, expect, it } from 'vitest';
import { ErrorCode, NatsError, type KV, type KvEntry } from 'nats';
import { KvClaimStore } from '../src/claims';
import { claimRetryUntil, claimSendReserveMs } from '../src/message-claim';

type Answer = 'stored' | 'no responders' | 'timeout after storing' | 'timeout before storing';

/**
 * A bucket answering each put as scripted, then as JetStream does: the first write of a key wins and later ones
 * fail with "wrong last sequence". Only what KvClaimStore calls is here.
 */
function scriptedBucket(script: Answer[]) {
  const stored = new Map<string, Uint8Array>();
  let puts = 0;
  const wrongLastSequence = () =>
    Object.assign(new NatsError('wrong last sequence: 1', ErrorCode.ApiError), { api_error: { err_code: 10071, code: 400 } });
  const bucket = {
    async put(key: string, value: Uint8Array) {
      const answer = script[puts++] ?? 'stored';
      if (answer === 'no responders') throw NatsError.errorForCode(ErrorCode.NoResponders);
      if (answer === 'timeout before storing') throw NatsError.errorForCode(ErrorCode.Timeout);
      if (stored.has(key)) throw wrongLastSequence();
      stored.set(key, value);
      if (answer === 'timeout after storing') throw NatsError.errorForCode(ErrorCode.Timeout);
      return stored.size;
    },
    async get(key: string) {
      const value = stored.get(key);
      return value ? ({ key, value } as KvEntry) : null;
    },
  };
  return { kv: bucket as unknown as KV, stored, puts: () => puts };
}

describe('claims while the claim store is briefly unavailable', () => {
  it('waits through "no responders" (a stream electing its leader) and takes the claim once it answers', async () => {
    const bucket = scriptedBucket(['no responders', 'no responders', 'no responders']);
    const store = KvClaimStore.over(bucket.kv, 'replica-a');
    expect(await store.claim('bat_1-p-acc_1', Date.now() + 5_000)).toBe(true);
    expect(bucket.puts()).toBe(4);
    expect(bucket.stored.has('bat_1-p-acc_1')).toBe(true);
  });

  it('gives up at its retry deadline and leaves nothing claimed', async () => {
    const bucket = scriptedBucket(Array.from({ length: 1_000 }, () => 'no responders' as const));
    const store = KvClaimStore.over(bucket.kv, 'replica-a');
    const startedMs = Date.now();
    await expect(store.claim('bat_2-p-acc_1', startedMs + 300)).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    expect(Date.now() - startedMs).toBeLessThan(1_000);
    expect(bucket.puts()).toBeGreaterThan(1);
    expect(bucket.stored.size).toBe(0);
  });

  it('does not retry without a retry deadline', async () => {
    const bucket = scriptedBucket(['no responders']);
    const store = KvClaimStore.over(bucket.kv, 'replica-a');
    await expect(store.claim('bat_3-p-acc_1')).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    expect(bucket.puts()).toBe(1);
  });

  it('recognises its own write that timed out after landing as its claim', async () => {
    const bucket = scriptedBucket(['timeout after storing']);
    const store = KvClaimStore.over(bucket.kv, 'replica-a');
    expect(await store.claim('bat_4-p-acc_1', Date.now() + 5_000)).toBe(true);
    expect(bucket.puts()).toBe(2);
  });

  it("still answers duplicate for another replica's claim found after a timeout", async () => {
    const bucket = scriptedBucket(['stored', 'timeout before storing']);
    const first = KvClaimStore.over(bucket.kv, 'replica-a');
    const second = KvClaimStore.over(bucket.kv, 'replica-b');
    expect(await first.claim('bat_5-p-acc_1', Date.now() + 5_000)).toBe(true);
    expect(await second.claim('bat_5-p-acc_1', Date.now() + 5_000)).toBe(false);
    expect(bucket.puts()).toBe(3);
  });

  it('waits at most the wait setting, and never into the reserve a send needs before the deadline', () => {
    const nowMs = 1_000_000;
    expect(claimRetryUntil(nowMs, 0, 4_000)).toBe(nowMs + 4_000);
    expect(claimRetryUntil(nowMs, nowMs + 10_000, 4_000)).toBe(nowMs + 4_000);
    expect(claimRetryUntil(nowMs, nowMs + 3_000, 4_000)).toBe(nowMs + 3_000 - claimSendReserveMs);
    expect(claimRetryUntil(nowMs, nowMs + 3_000, 0)).toBe(nowMs);
  });
});
