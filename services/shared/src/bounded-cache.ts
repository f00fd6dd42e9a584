/** Least-recently-used map with a hard size bound: every in-process cache of ours has one, so none grows without limit. */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly sizeMax: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.sizeMax) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
