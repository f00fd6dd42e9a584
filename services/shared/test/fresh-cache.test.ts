import { describe, expect, it } from 'vitest';
import { FreshCache } from '../src/cache/fresh-cache';

/** A load the test finishes by hand, so reads and invalidations can be interleaved exactly. */
function controlledLoads() {
  const pending: Array<{ resolve: (value: string) => void; reject: (error: Error) => void }> = [];
  let started = 0;
  return {
    load: () =>
      new Promise<string>((resolve, reject) => {
        started += 1;
        pending.push({ resolve, reject });
      }),
    finish(index: number, value: string) {
      pending[index]!.resolve(value);
    },
    fail(index: number, error: Error) {
      pending[index]!.reject(error);
    },
    get started() {
      return started;
    },
  };
}

describe('the fresh cache (every read cache of the services)', () => {
  it('serves a stored answer while fresh and loads again once it is older than freshMs', async () => {
    let nowMs = 0;
    const model = new FreshCache<string>({ freshMs: 1_000, entriesMax: 10, now: () => nowMs });
    let loads = 0;
    const load = async () => `answer ${++loads}`;
    expect(await model.read('cus_a', load)).toBe('answer 1');
    // Every customer's window is at least three quarters of freshMs and at most all of it.
    nowMs = 750;
    expect(await model.read('cus_a', load)).toBe('answer 1');
    nowMs = 1_001;
    expect(await model.read('cus_a', load)).toBe('answer 2');
    expect(model.stats).toMatchObject({ hits: 1, loads: 2 });
  });

  it('with refreshAheadShare, reloads behind a read once that share of the window passed, never serving past it', async () => {
    let nowMs = 0;
    const model = new FreshCache<string>({ freshMs: 1_000, entriesMax: 10, now: () => nowMs, refreshAheadShare: 0.5 });
    const loads = controlledLoads();
    const first = model.read('cus_a', loads.load);
    loads.finish(0, 'answer 1');
    expect(await first).toBe('answer 1');
    // Younger than half of any key's window (at least 750 ms): served, nothing reloaded.
    nowMs = 300;
    expect(await model.read('cus_a', loads.load)).toBe('answer 1');
    expect(loads.started).toBe(1);
    // Past half of the largest window: served at once from memory, and one reload starts behind it.
    nowMs = 501;
    expect(await model.read('cus_a', loads.load)).toBe('answer 1');
    expect(await model.read('cus_a', loads.load)).toBe('answer 1');
    expect(loads.started).toBe(2);
    loads.finish(1, 'answer 2');
    await Promise.resolve();
    await Promise.resolve();
    // The reload's answer is served, and its window starts from when it began (501).
    nowMs = 800;
    expect(await model.read('cus_a', loads.load)).toBe('answer 2');
    expect(model.stats).toMatchObject({ loads: 1, refreshes: 1 });
    // A change while a reload runs: the reload is never stored, and the next read loads on its path.
    nowMs = 1_200;
    expect(await model.read('cus_a', loads.load)).toBe('answer 2');
    expect(loads.started).toBe(3);
    model.invalidate('cus_a');
    loads.finish(2, 'stale');
    const afterChange = model.read('cus_a', loads.load);
    expect(loads.started).toBe(4);
    loads.finish(3, 'answer 3');
    expect(await afterChange).toBe('answer 3');
  });

  it('with refreshAheadShare, a failed reload leaves the held answer served until it expires', async () => {
    let nowMs = 0;
    const model = new FreshCache<string>({ freshMs: 1_000, entriesMax: 10, now: () => nowMs, refreshAheadShare: 0.5 });
    const loads = controlledLoads();
    const first = model.read('cus_a', loads.load);
    loads.finish(0, 'answer 1');
    await first;
    nowMs = 600;
    expect(await model.read('cus_a', loads.load)).toBe('answer 1');
    loads.fail(1, new Error('backend down'));
    await Promise.resolve();
    await Promise.resolve();
    nowMs = 700;
    expect(await model.read('cus_a', loads.load)).toBe('answer 1');
    // That read started another reload (the failed one is gone); past the window a read waits for a load.
    expect(loads.started).toBe(3);
    loads.fail(2, new Error('backend down'));
    await Promise.resolve();
    await Promise.resolve();
    nowMs = 1_100;
    const missed = model.read('cus_a', loads.load);
    loads.fail(3, new Error('still down'));
    await expect(missed).rejects.toThrow('still down');
  });

  it('keeps customers apart and loads again after an invalidation of that customer only', async () => {
    const model = new FreshCache<string>({ freshMs: 60_000, entriesMax: 10 });
    const counts = new Map<string, number>();
    const loadFor = (customerId: string) => async () => {
      counts.set(customerId, (counts.get(customerId) ?? 0) + 1);
      return `${customerId} #${counts.get(customerId)}`;
    };
    expect(await model.read('cus_a', loadFor('cus_a'))).toBe('cus_a #1');
    expect(await model.read('cus_b', loadFor('cus_b'))).toBe('cus_b #1');
    model.invalidate('cus_a');
    expect(await model.read('cus_a', loadFor('cus_a'))).toBe('cus_a #2');
    expect(await model.read('cus_b', loadFor('cus_b'))).toBe('cus_b #1');
  });

  it('never stores an answer whose load started before an invalidation, and detaches later readers from it', async () => {
    const model = new FreshCache<string>({ freshMs: 60_000, entriesMax: 10 });
    const loads = controlledLoads();
    const first = model.read('cus_a', loads.load);
    const joined = model.read('cus_a', loads.load);
    expect(loads.started).toBe(1);
    model.invalidate('cus_a');
    // A reader after the change must not share the load that may have read the old state.
    const afterChange = model.read('cus_a', loads.load);
    expect(loads.started).toBe(2);
    loads.finish(0, 'old state');
    expect(await first).toBe('old state');
    expect(await joined).toBe('old state');
    loads.finish(1, 'new state');
    expect(await afterChange).toBe('new state');
    // What is stored is the load that began after the invalidation, not the one that finished later or earlier.
    expect(await model.read('cus_a', loads.load)).toBe('new state');
    expect(loads.started).toBe(2);
  });

  it('does not store the older of two overlapping loads when an invalidation separates them, whatever order they end in', async () => {
    const model = new FreshCache<string>({ freshMs: 60_000, entriesMax: 10 });
    const loads = controlledLoads();
    const before = model.read('cus_a', loads.load);
    model.invalidate('cus_a');
    const after = model.read('cus_a', loads.load);
    loads.finish(1, 'new state');
    await after;
    loads.finish(0, 'old state');
    await before;
    expect(await model.read('cus_a', loads.load)).toBe('new state');
    expect(loads.started).toBe(2);
  });

  it('passes load failures to every waiting reader and stores nothing', async () => {
    const model = new FreshCache<string>({ freshMs: 60_000, entriesMax: 10 });
    const loads = controlledLoads();
    const first = model.read('cus_a', loads.load);
    const second = model.read('cus_a', loads.load);
    loads.fail(0, new Error('backend down'));
    await expect(first).rejects.toThrow('backend down');
    await expect(second).rejects.toThrow('backend down');
    const retry = model.read('cus_a', loads.load);
    expect(loads.started).toBe(2);
    loads.finish(1, 'recovered');
    expect(await retry).toBe('recovered');
  });

  it('is bounded in entries and forgets invalidation records without ever trusting a load they could have covered', async () => {
    const model = new FreshCache<string>({ freshMs: 60_000, entriesMax: 3 });
    for (const customerId of ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5']) await model.read(customerId, async () => customerId);
    expect(model.stats.size).toBe(3);
    const loads = controlledLoads();
    const slow = model.read('cus_x', loads.load);
    // Invalidations of other customers push cus_x's own record out of the bounded map.
    model.invalidate('cus_x');
    for (const customerId of ['cus_6', 'cus_7', 'cus_8', 'cus_9']) model.invalidate(customerId);
    loads.finish(0, 'stale');
    await slow;
    const fresh = model.read('cus_x', loads.load);
    expect(loads.started).toBe(2);
    loads.finish(1, 'fresh');
    expect(await fresh).toBe('fresh');
  });

  it('answers every read by a load while suspended (announcements may be missed), and when freshMs is 0', async () => {
    let loads = 0;
    const load = async () => ++loads;
    const disabled = new FreshCache<number>({ freshMs: 60_000, entriesMax: 10 });
    await disabled.read('cus_a', load);
    disabled.suspend();
    expect(disabled.enabled).toBe(false);
    await disabled.read('cus_a', load);
    await disabled.read('cus_a', load);
    expect(loads).toBe(3);
    disabled.resume();
    await disabled.read('cus_a', load);
    await disabled.read('cus_a', load);
    expect(loads).toBe(4);

    const off = new FreshCache<number>({ freshMs: 0, entriesMax: 10 });
    await off.read('cus_a', load);
    await off.read('cus_a', load);
    expect(loads).toBe(6);
    expect(off.enabled).toBe(false);
  });

  it('keeps an entry no longer trusted as the base of the next load, and serves a value set by its own writer', async () => {
    const cache = new FreshCache<string>({ freshMs: 60_000, entriesMax: 10 });
    const stamp = cache.begin();
    expect(cache.store('cus_a', 'view 1', stamp)).toBe(true);
    expect(cache.get('cus_a')).toBe('view 1');
    cache.distrust('cus_a');
    expect(cache.get('cus_a')).toBeUndefined();
    expect(cache.peek('cus_a')).toBe('view 1');
    cache.set('cus_a', 'view 2');
    expect(cache.get('cus_a')).toBe('view 2');
    // A load that began before the set ends later: it never replaces the newer value.
    expect(cache.store('cus_a', 'view 1 again', stamp)).toBe(false);
    expect(cache.get('cus_a')).toBe('view 2');
    cache.invalidate('cus_a');
    expect(cache.peek('cus_a')).toBeUndefined();
  });

  it('trusts nothing loaded before a resume: what was read while announcements were missed is loaded again', async () => {
    const cache = new FreshCache<string>({ freshMs: 60_000, entriesMax: 10 });
    await cache.read('cus_a', async () => 'before');
    cache.suspend();
    cache.resume();
    expect(cache.get('cus_a')).toBeUndefined();
    expect(await cache.read('cus_a', async () => 'after')).toBe('after');
    expect(cache.get('cus_a')).toBe('after');
  });
});
