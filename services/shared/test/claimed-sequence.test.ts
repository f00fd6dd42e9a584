import { describe, expect, it } from 'vitest';
import { ClaimedSequence } from '../src/store/claimed-sequence';

/** An exclusive-insert store in memory: the ids written, and an insert that can be made to fail. */
function memoryStore() {
  const written = new Set<string>();
  let failNext: 'before_write' | 'after_write' | undefined;
  return {
    written,
    failNextInsert(mode: 'before_write' | 'after_write') {
      failNext = mode;
    },
    sequence: new ClaimedSequence(async (id) => written.has(id)),
    insert: async (id: string) => {
      const mode = failNext;
      failNext = undefined;
      if (mode === 'before_write') throw new Error('store unavailable');
      if (written.has(id)) return false;
      written.add(id);
      if (mode === 'after_write') throw new Error('the answer was lost');
      return true;
    },
  };
}

describe('ClaimedSequence', () => {
  it('claims gapless numbers, one after another', async () => {
    const store = memoryStore();
    for (let index = 0; index < 3; index += 1) await store.sequence.claim('cus_a', store.insert);
    expect([...store.written]).toEqual(['cus_a:1', 'cus_a:2', 'cus_a:3']);
  });

  it('leaves no gap when an insert fails before it was written', async () => {
    const store = memoryStore();
    await store.sequence.claim('cus_b', store.insert);
    store.failNextInsert('before_write');
    await expect(store.sequence.claim('cus_b', store.insert)).rejects.toThrow('store unavailable');
    expect(await store.sequence.claim('cus_b', store.insert)).toBe('cus_b:2');
    expect([...store.written]).toEqual(['cus_b:1', 'cus_b:2']);
  });

  it('goes on after the number when an insert failed after it was written', async () => {
    const store = memoryStore();
    store.failNextInsert('after_write');
    await expect(store.sequence.claim('cus_c', store.insert)).rejects.toThrow('the answer was lost');
    expect(await store.sequence.claim('cus_c', store.insert)).toBe('cus_c:2');
    expect([...store.written]).toEqual(['cus_c:1', 'cus_c:2']);
  });
});
