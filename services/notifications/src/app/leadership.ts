import { randomUUID } from 'node:crypto';
import type { KV, NatsConnection } from 'nats';
import type { Logger } from '@mtx/shared/logger';

const leaderKey = 'leader';
const callTimeoutMs = 2_000;

/**
 * One replica at a time takes events off the stream and delivers them (each customer's events stay in order,
 * and an endpoint is not sent the same event by two replicas at once). The holder keeps a key in a JetStream
 * KV bucket whose entries expire after `leaseMs`, renewing it by revision every third of that; the others try
 * to create it on the same beat, so a replica that dies is replaced within `leaseMs` plus a beat. A holder
 * that cannot renew (partitioned, paused) steps down before another may take over.
 */
export class Leadership {
  private kv: KV | undefined;
  private revision = 0;
  private leading = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly identity = randomUUID();

  constructor(
    private readonly options: {
      nats: NatsConnection;
      bucket: string;
      leaseMs: number;
      replicas: number;
      logger: Logger;
      onLead: () => Promise<void> | void;
      onStepDown: () => Promise<void> | void;
    },
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  async start(): Promise<void> {
    this.kv = await this.options.nats
      .jetstream({ timeout: callTimeoutMs })
      .views.kv(this.options.bucket, { ttl: this.options.leaseMs, history: 1, replicas: this.options.replicas });
    await this.beat();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    const kv = this.kv!;
    const value = new TextEncoder().encode(this.identity);
    try {
      if (this.leading) {
        this.revision = await kv.update(leaderKey, value, this.revision);
      } else {
        this.revision = await kv.create(leaderKey, value);
        this.leading = true;
        this.options.logger.info({ bucket: this.options.bucket }, 'took the lead: delivering webhooks');
        await this.options.onLead();
      }
    } catch (error) {
      if (this.leading) {
        this.leading = false;
        this.options.logger.warn({ err: error }, 'lost the lead: stopped delivering webhooks');
        await this.options.onStepDown();
      }
    } finally {
      this.schedule();
    }
  }

  /** Steps down and gives the key up, so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    await this.options.onStepDown();
    await this.kv?.delete(leaderKey, { previousSeq: this.revision }).catch(() => undefined);
  }
}
