/**
 * Faults an operator or a test sets per account through the control API (latency, rejects, requotes, hangs,
 * disconnects, a closed market), each optionally for the next N trade requests only.
 */
export interface FaultSettings {
  /** Latency before a trade request executes; replaces BROKER_SIM_LATENCY_MS for this account. */
  delay_ms?: number;
  /** The request executes at once but its answer is held this long (or until the caller gives up). */
  hang_ms?: number;
  /** Refuse trade requests with this platform-native code (MT4 error number or MT5 retcode). */
  reject_code?: number;
  reject_message?: string;
  /** Answer trade requests with a requote. */
  requote?: boolean;
  /** The trade server is unreachable: logins fail and open sessions are dropped. */
  disconnect?: boolean;
  /** Trading is closed for the account's symbols. */
  market_closed?: boolean;
  /** Only the next N trade requests are affected; afterwards the settings clear themselves. */
  remaining?: number;
}

/** Holds an answer for `durationMs`, or until the caller gives up, whichever comes first. */
export function holdAnswer(durationMs: number, cancelled: Promise<void> | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, durationMs);
    void cancelled?.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The fault settings of every account, by account key. */
export class FaultBook {
  private readonly byAccount = new Map<string, FaultSettings>();

  /** An empty object clears the account's settings. */
  set(key: string, settings: FaultSettings): void {
    if (Object.keys(settings).length === 0) this.byAccount.delete(key);
    else this.byAccount.set(key, { ...settings });
  }

  get(key: string): FaultSettings | undefined {
    return this.byAccount.get(key);
  }

  /** The settings that apply to the account's next trade request, counting it against `remaining`. */
  take(key: string): FaultSettings | undefined {
    const settings = this.byAccount.get(key);
    if (!settings) return undefined;
    if (settings.remaining !== undefined) {
      settings.remaining -= 1;
      if (settings.remaining <= 0) this.byAccount.delete(key);
    }
    return settings;
  }
}
