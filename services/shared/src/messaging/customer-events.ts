import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { JetStreamClient, NatsConnection } from 'nats';
import type { Logger } from '../telemetry/logger';

/**
 * The events a customer's webhooks receive, as the services that cause them publish them. Each has a
 * deterministic id (from what happened, not when it was noticed), so a service that announces one twice, or
 * two replicas that both notice it, make one event; the id is keyed by a deployment secret, so nobody can work
 * it out from what they know of the occurrence (a batch id, a top-up id, a day).
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

/**
 * The test event a customer sends to one endpoint (POST /v1/webhook_endpoints/{id}/test): recorded and delivered
 * like any event, but only to the endpoint named in its data, whatever that endpoint subscribed to; nobody
 * subscribes to it.
 */
export const pingEventType = 'ping';

/** Every type the event log records: the customer events and the test event. */
export const recordedEventTypes = [...customerEventTypes, pingEventType] as const;

export type RecordedEventType = (typeof recordedEventTypes)[number];

export interface CustomerEvent {
  id: string;
  type: RecordedEventType;
  customer_id: string;
  /** Unix seconds. */
  created: number;
  data: Record<string, unknown>;
}

/** An event as its cause describes it: what identifies the occurrence, not yet its id (the publisher derives it). */
export interface CustomerEventDraft extends Omit<CustomerEvent, 'id' | 'type'> {
  type: CustomerEventType;
  /** What identifies the occurrence within its type (`<seat>:<period end>`, `expired:<topup>`, …); never published. */
  occurrence: string;
}

/** Local-only key for event ids, so a laptop works out of the box; every deployment sets its own EVENT_ID_SECRET. */
export const developmentEventIdSecret = 'local-only-event-id-secret';

/**
 * EVENT_ID_SECRET, a setting of every service that publishes customer events: the HMAC key of their ids. Every
 * replica of every publisher must share it (else one occurrence announced twice gets two ids). Never logged.
 */
export const eventIdSecretProperty = Type.String({ minLength: 16, maxLength: 256, default: developmentEventIdSecret });

/** Hex characters of the MAC an id keeps: 32 × 4 = 128 bits, past guessing and past any chance collision. */
const eventIdMacChars = 32;

/** What every event id looks like; receivers of ids (the notifier, the gateway's cursor) check it. */
export const customerEventIdPattern = /^evt_[0-9a-f]{32}$/;

/**
 * `evt_` and the first 128 bits, in hex, of HMAC-SHA256(secret, type NUL occurrence): the same occurrence always
 * gets the same id, and without the secret an id can be neither derived from the occurrence nor traced back to it.
 */
export function customerEventId(secret: string, type: CustomerEventType, occurrence: string): string {
  return `evt_${crypto.createHmac('sha256', secret).update(`${type}\u0000${occurrence}`).digest('hex').slice(0, eventIdMacChars)}`;
}

export function customerEvent(
  type: CustomerEventType,
  occurrence: string,
  customerId: string,
  data: Record<string, unknown>,
  at: Date = new Date(),
): CustomerEventDraft {
  return { type, occurrence, customer_id: customerId, created: Math.floor(at.getTime() / 1000), data };
}

/** The event as published: its id derived, the occurrence left out. */
export function identifiedCustomerEvent(secret: string, draft: CustomerEventDraft): CustomerEvent {
  const { occurrence, ...rest } = draft;
  return { id: customerEventId(secret, draft.type, occurrence), ...rest };
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

export function customerEventSubject(channel: CustomerEventChannel, type: RecordedEventType): string {
  return `${channel.subjectRoot}.${type}`;
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
  // Made at the first publish: building a publisher asks nothing of the connection (docs/architecture.md, "Code layout").
  private jetstreamClient: JetStreamClient | undefined;
  private pending = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private noStreamUntilMs = 0;

  constructor(
    private readonly nats: NatsConnection,
    private readonly channel: CustomerEventChannel,
    private readonly logger: Logger,
    /** EVENT_ID_SECRET: the key of the events' ids. */
    private readonly eventIdSecret: string,
  ) {
    if (eventIdSecret === developmentEventIdSecret)
      logger.warn('EVENT_ID_SECRET is the development default; set your own outside a laptop, the same on every publisher');
  }

  private get jetstream(): JetStreamClient {
    this.jetstreamClient ??= this.nats.jetstream({ timeout: publishTimeoutMs });
    return this.jetstreamClient;
  }

  publish(draft: CustomerEventDraft): void {
    if (Date.now() < this.noStreamUntilMs) return;
    const event = identifiedCustomerEvent(this.eventIdSecret, draft);
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
