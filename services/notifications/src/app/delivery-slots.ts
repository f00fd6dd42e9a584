/**
 * Counts deliveries in flight: at most `totalMax` over every endpoint and `perCustomerMax` for one customer. A
 * delivery that finds no slot waits in its customer's queue, and the customers waiting take turns (round-robin),
 * so a customer with many slow endpoints cannot take every slot that frees up. The queues are bounded: each
 * endpoint's worker waits for at most one slot at a time, so they hold at most one entry per endpoint.
 */
export class DeliverySlots {
  private used = 0;
  private readonly usedBy = new Map<string, number>();
  /** Customers waiting, in turn order (a Map keeps insertion order), each with its waiters in order. */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly totalMax: number,
    private readonly perCustomerMax: number,
  ) {}

  take(customerId: string): Promise<void> {
    if (!this.waiting.has(customerId) && this.free(customerId)) {
      this.grant(customerId);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const queue = this.waiting.get(customerId) ?? [];
      queue.push(resolve);
      this.waiting.set(customerId, queue);
    });
  }

  give(customerId: string): void {
    this.used -= 1;
    const left = (this.usedBy.get(customerId) ?? 1) - 1;
    if (left > 0) this.usedBy.set(customerId, left);
    else this.usedBy.delete(customerId);
    this.serveWaiting();
  }

  /** Deliveries in flight now, for one customer or over all. */
  inFlight(customerId?: string): number {
    return customerId === undefined ? this.used : (this.usedBy.get(customerId) ?? 0);
  }

  private free(customerId: string): boolean {
    return this.used < this.totalMax && (this.usedBy.get(customerId) ?? 0) < this.perCustomerMax;
  }

  private grant(customerId: string): void {
    this.used += 1;
    this.usedBy.set(customerId, (this.usedBy.get(customerId) ?? 0) + 1);
  }

  /** Hands free slots to waiting customers in turn; a customer served goes to the back of the line. */
  private serveWaiting(): void {
    while (this.used < this.totalMax) {
      let served = false;
      for (const [customerId, queue] of this.waiting) {
        if (!this.free(customerId)) continue;
        const next = queue.shift()!;
        this.waiting.delete(customerId);
        if (queue.length > 0) this.waiting.set(customerId, queue);
        this.grant(customerId);
        next();
        served = true;
        break;
      }
      if (!served) return;
    }
  }
}
