/** A slot of the current minute a replica claimed ahead of the requests it will admit (see the rate limiter). */
export interface LeasedSlot {
  window: number;
  slot: number;
  /** It may be handed out until then, never after: the time stored with the slot is no earlier. */
  usableUntilMs: number;
}

/**
 * What one replica admitted for one bucket in the current and the previous lease period: the next lease is
 * sized by it, so a bucket used steadily gets a lease that lasts about a period and an occasional one none.
 */
export class LeaseDemand {
  private periodStartMs = 0;
  private current = 0;
  private previous = 0;

  constructor(private readonly periodMs: number) {}

  note(nowMs: number, admitted: number): void {
    if (nowMs - this.periodStartMs >= this.periodMs) {
      this.previous = nowMs - this.periodStartMs >= 2 * this.periodMs ? 0 : this.current;
      this.current = 0;
      this.periodStartMs = nowMs;
    }
    this.current += admitted;
  }

  /**
   * Slots to claim ahead: half the admissions of a recent period (refilled at half, a lease and the rest of the
   * one before last about three quarters of a period, so a steady stream uses them all before they expire), at
   * most a 32nd of the limit and `room` (what the claim's insert has left); none below 2, since a lease of one
   * saves nothing.
   */
  leaseSize(limit: number, room: number): number {
    if (this.periodMs <= 0) return 0;
    const size = Math.min(Math.ceil(Math.max(this.current, this.previous) / 2), Math.floor(limit / 32), room);
    return size >= 2 ? size : 0;
  }
}
