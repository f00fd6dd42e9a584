import { LinkedMap } from './linked-map';

interface Slot<V> {
  value: V;
  used: boolean;
}

/**
 * A map with a hard size bound that evicts entries not used lately: every in-process cache of ours has one, so
 * none grows without limit.
 *
 * Second chance rather than strict LRU: a hit only marks its entry, and eviction walks from the oldest insertion,
 * sending marked entries to the back once. Strict LRU in a Map (delete and set on every hit) costs V8 a rehash of
 * the whole table when the same few keys cycle through a large one: 10–20 µs a hit at 10,000 entries (Node 20 and
 * 24, measured). The order is a LinkedMap's: finding the oldest entry of a full plain Map is not O(1) (see there).
 */
export class BoundedCache<V> {
  private readonly entries = new LinkedMap<string, Slot<V>>();
  constructor(private readonly sizeMax: number) {}

  get(key: string): V | undefined {
    const slot = this.entries.get(key);
    if (!slot) return undefined;
    slot.used = true;
    return slot.value;
  }

  set(key: string, value: V): void {
    const slot = this.entries.get(key);
    if (slot) {
      slot.value = value;
      slot.used = true;
      return;
    }
    this.entries.set(key, { value, used: false });
    this.evict(key);
  }

  /**
   * Each marked entry passed over is unmarked, so the walk ends within one pass of the table. The entry just
   * stored is passed over too (a cache that dropped what it was just given would be no cache), unless it is all
   * there is room for.
   */
  private evict(storedKey: string): void {
    while (this.entries.size > Math.max(this.sizeMax, 0)) {
      const [oldestKey, oldest] = this.entries.shift()!;
      if (!oldest.used && (oldestKey !== storedKey || this.entries.size === 0)) continue;
      oldest.used = false;
      this.entries.set(oldestKey, oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
