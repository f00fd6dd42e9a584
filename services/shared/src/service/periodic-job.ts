import type { Logger } from '../telemetry/logger';

export interface PeriodicJobOptions {
  /** Named in the log line of a failed pass. */
  name: string;
  intervalMs: number;
  work: () => Promise<unknown>;
  logger: Logger;
  /** Wait before the first pass; defaults to `intervalMs`. A random share spreads replicas started together. */
  firstDelayMs?: number;
  /** Runs once at start, before the first pass is scheduled (a start-up sweep). */
  initialWork?: () => Promise<unknown>;
}

/**
 * A background job every service has some of (sweeps, reconciliation, the billing scheduler, the market tick):
 * one pass at a time, the next scheduled `intervalMs` after the previous ends, so a slow pass never piles up
 * behind itself; a failed pass is logged with the job's name and the schedule goes on. `stop()` cancels what
 * is scheduled and waits for a pass in progress, so a service shuts down without cutting one in half.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;

  constructor(private readonly options: PeriodicJobOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.options.initialWork) {
      this.running = this.guarded(this.options.initialWork).finally(() => {
        this.running = undefined;
        this.schedule(this.options.firstDelayMs ?? this.options.intervalMs);
      });
    } else this.schedule(this.options.firstDelayMs ?? this.options.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Whether a pass is running now. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.guarded(this.options.work).finally(() => {
        this.running = undefined;
        this.schedule(this.options.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private guarded(work: () => Promise<unknown>): Promise<unknown> {
    return Promise.resolve()
      .then(work)
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error, job: this.options.name }, 'background job failed; it runs again on schedule'),
      );
  }
}
