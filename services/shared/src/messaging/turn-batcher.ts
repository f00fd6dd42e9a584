/**
 * Items queued during one event-loop turn, handed over together at its end (the check phase, `setImmediate`), or
 * at once when `maxItems` are waiting. A process that handles many requests in one turn (a trade server answering
 * the legs of many accounts from one read) then sends them as one message and one write, instead of one each,
 * and a lone item waits no longer than the rest of its turn.
 */
export class TurnBatcher<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(
    private readonly deliver: (items: T[]) => void,
    private readonly maxItems: number,
  ) {
    if (!(maxItems >= 1)) throw new Error(`TurnBatcher: maxItems must be at least 1, not ${maxItems}`);
  }

  get waiting(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length >= this.maxItems) {
      this.flush();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Hands over what is waiting now (before the stream it feeds is ended, for instance). */
  flush(): void {
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.deliver(items);
  }

  /** Drops what is waiting (the stream it fed is gone, and its callers were told so). */
  discard(): void {
    this.items = [];
  }
}
