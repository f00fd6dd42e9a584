import type { Clock } from '@mtx/shared/clock';
import { LinkedMap } from '@mtx/shared/linked-map';

interface Window {
  startedAtMs: number;
  failures: number;
}

const windowMs = 60_000;

/**
 * Failed authentications per client address, per minute, in this replica's memory. A flood of made-up keys is
 * then answered 429 before any key is read, after the first few per address. Unlike the customers' rate limits
 * (one count shared by every replica, in the store), this needs no shared count: its job is to keep each
 * replica's work per bad request near zero, and a store write per failure would be the very cost it avoids.
 * Bounded: the least recently failing addresses are forgotten first.
 */
export class AuthFailureLimiter {
  private readonly windows = new LinkedMap<string, Window>();

  private readonly exempt: Set<string>;

  /**
   * `exemptAddresses`: peers never limited. By default the loopback ones: without a trusted proxy in front, a
   * loopback peer is a local tool, or a proxy on the same host whose clients would all share its one address and
   * be throttled together by one of them.
   */
  constructor(
    private readonly options: { clock: Clock; failuresPerMinute: number; addressesMax?: number; exemptAddresses?: readonly string[] },
  ) {
    this.exempt = new Set(options.exemptAddresses ?? ['127.0.0.1', '::1', '::ffff:127.0.0.1']);
  }

  /** Seconds until the address may try again; 0 while it is under the limit. */
  retryAfterSeconds(address: string): number {
    if (this.exempt.has(address)) return 0;
    const window = this.windows.get(address);
    if (!window || window.failures < this.options.failuresPerMinute) return 0;
    const remainingMs = window.startedAtMs + windowMs - this.options.clock.now().getTime();
    if (remainingMs <= 0) {
      this.windows.delete(address);
      return 0;
    }
    return Math.ceil(remainingMs / 1000);
  }

  noteFailure(address: string): void {
    if (this.exempt.has(address)) return;
    const nowMs = this.options.clock.now().getTime();
    let window = this.windows.get(address);
    if (!window || window.startedAtMs + windowMs <= nowMs) window = { startedAtMs: nowMs, failures: 0 };
    window.failures += 1;
    this.windows.delete(address);
    this.windows.set(address, window);
    const addressesMax = this.options.addressesMax ?? 100_000;
    while (this.windows.size > addressesMax) this.windows.shift();
  }
}
