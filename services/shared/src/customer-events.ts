import crypto from 'node:crypto';
import type { JetStreamClient, NatsConnection } from 'nats';
import type { Logger } from './logger';

/**
 * The events a customer's webhooks receive (DESIGN §7), as the services that cause them publish them. Each has a
 * deterministic id (from what happened, not when it was noticed), so a service that announces one twice, or
 * two replicas that both notice it, make one event.
 */
export const customerEventTypes = [
  'batch.settled',
  'topup.credited',
  'topup.expired',
  'seat.past_due',
  'seat.suspended',
  'wallet.low_balance',
] as const;

export type CustomerEventType = (typeof customerEventTypes)[number];

export interface CustomerEvent {
  id: string;
  type: CustomerEventType;
  customer_id: string;
  /** Unix seconds. */
  created: number;
  data: Record<string, unknown>;
}

/**
 * Where a deployment's events travel: published on `events.notify.<deployment>.<type>` and held by the stream
 * `NOTIFY_<deployment>` until the notifier records them. The deployment is its database prefix
 * (MONGODB_DATABASE_PREFIX), so stacks that share a NATS server but not a database (tests) never see each
 * other's events.
 */
export interface CustomerEventChannel {
  subjectRoot: string;
  stream: string;
}

export function customerEventChannel(databasePrefix: string): CustomerEventChannel {
  const deployment = databasePrefix.replace(/[^A-Za-z0-9_-]/g, '_') || 'default';
  return { subjectRoot: `events.notify.${deployment}`, stream: `NOTIFY_${deployment}` };
}

export function customerEventSubject(channel: CustomerEventChannel, type: CustomerEventType): string {
  return `${channel.subjectRoot}.${type}`;
}

/** `evt_` and 24 hex characters of the SHA-256 of the type and what identifies the occurrence. */
export function customerEventId(type: CustomerEventType, occurrence: string): string {
  return `evt_${crypto.hash('sha256', `${type}\u0000${occurrence}`, 'hex').slice(0, 24)}`;
}

export function customerEvent(
  type: CustomerEventType,
  occurrence: string,
  customerId: string,
  data: Record<string, unknown>,
  at: Date = new Date(),
): CustomerEvent {
  return { id: customerEventId(type, occurrence), type, customer_id: customerId, created: Math.floor(at.getTime() / 1000), data };
}

const publishTimeoutMs = 2_000;
const retryForMs = 30_000;
const pendingMax = 10_000;
/** After "no stream" (no notifier has ever run), events are dropped without asking again for this long. */
const noStreamPauseMs = 5_000;

/**
 * Publishes customer events to JetStream, acknowledged by the stream (the message id is the event id, so a
 * retry within the stream's duplicate window is stored once). A publish never delays the caller: it is retried
 * in the background for 30 s, the pending ones bounded. A deployment without the NOTIFY stream (no notifier
 * has ever run) has no one to tell: the event is dropped, and so are the next ones for a few seconds without a
 * round trip each (a benchmark or a test stack without a notifier would otherwise pay one per batch).
 */
export class CustomerEventPublisher {
  private readonly jetstream: JetStreamClient;
  private pending = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private noStreamUntilMs = 0;

  constructor(
    nats: NatsConnection,
    private readonly channel: CustomerEventChannel,
    private readonly logger: Logger,
  ) {
    this.jetstream = nats.jetstream({ timeout: publishTimeoutMs });
  }

  publish(event: CustomerEvent): void {
    if (Date.now() < this.noStreamUntilMs) return;
    if (this.pending >= pendingMax) {
      this.logger.error({ event_id: event.id, type: event.type }, `customer event dropped: ${pendingMax} are waiting for NATS`);
      return;
    }
    this.pending += 1;
    const work = this.deliver(event).finally(() => {
      this.pending -= 1;
      this.inFlight.delete(work);
    });
    this.inFlight.add(work);
  }

  private async deliver(event: CustomerEvent): Promise<void> {
    const giveUpAtMs = Date.now() + retryForMs;
    const payload = new TextEncoder().encode(JSON.stringify(event));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.jetstream.publish(customerEventSubject(this.channel, event.type), payload, {
          msgID: event.id,
          timeout: publishTimeoutMs,
        });
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // No stream listens on the subject: this deployment records no customer events.
        if (code === '503') {
          this.noStreamUntilMs = Date.now() + noStreamPauseMs;
          return;
        }
        const pauseMs = Math.min(5_000, 100 * 2 ** attempt);
        if (Date.now() + pauseMs > giveUpAtMs) {
          this.logger.error({ err: error, event_id: event.id, type: event.type }, 'customer event could not be published; it is lost');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
  }

  /** Waits (up to `graceMs`) for the events in hand to reach the stream; for shutdown. */
  async flush(graceMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((resolve) => setTimeout(resolve, graceMs))]);
  }
}
