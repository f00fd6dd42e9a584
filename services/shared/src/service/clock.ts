/** Time source every service takes by injection, so tests can move time without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  private currentMs: number;
  constructor(start: Date | string | number = Date.now()) {
    this.currentMs = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.currentMs);
  }
  set(to: Date | string | number): void {
    this.currentMs = new Date(to).getTime();
  }
  advanceMs(durationMs: number): void {
    this.currentMs += durationMs;
  }
}
