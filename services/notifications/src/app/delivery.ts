import { metrics, SpanKind, SpanStatusCode, trace, type BatchObservableCallback } from '@opentelemetry/api';
import { pingEventType } from '@mtx/shared/customer-events';
import type { Logger } from '@mtx/shared/logger';
import { createCounter, createHistogram, createObservableGauge, instruments, observeTogether } from '@mtx/shared/instruments';
import type { SecretBox } from '@mtx/shared/secret-box';
import type { WebhookSender } from '../clients/webhook-sender';
import { retriesExhausted, retryDelayMs } from '../domain/retry-schedule';
import { signatureHeader } from '../domain/signature';
import type { CursorDocument, EndpointDocument, EventDocument, NotificationsStore } from '../store/notifications-store';
import { DeliverySlots } from './delivery-slots';
import type { EventLog } from './event-log';

const tracer = trace.getTracer('mtx-notifications');
const deliveriesCounter = createCounter(instruments.notificationsDeliveries);
const deliveryDuration = createHistogram(instruments.notificationsDeliveryDuration);
const deliveryLag = createHistogram(instruments.notificationsDeliveryLag);
const disabledCounter = createCounter(instruments.notificationsEndpointsDisabled);
const endpointBacklog = createObservableGauge(instruments.notificationsEndpointBacklog);
const endpointOldestAge = createObservableGauge(instruments.notificationsEndpointOldestAge);

export interface DeliverySettings {
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  retryForMs: number;
  inFlightMax: number;
  /** Deliveries one customer may have in flight (its endpoints deliver one event at a time each). */
  customerInFlightMax: number;
}

export interface DeliveryOptions {
  store: Pick<NotificationsStore, 'cursors'>;
  events: EventLog;
  sender: WebhookSender;
  secrets: SecretBox;
  settings: DeliverySettings;
  logger: Logger;
  nowMs: () => number;
  random?: () => number;
  /** Disables an endpoint whose retries are exhausted. */
  disable: (endpoint: EndpointDocument, reason: string) => Promise<void>;
}

/** The body a receiver gets: the event as GET /v1/events lists it. */
export function deliveryBody(event: EventDocument): string {
  return JSON.stringify({ id: event.event_id, type: event.type, created: event.created, data: event.data });
}

/**
 * One endpoint's deliveries: its events one at a time, in order, each retried (backoff with jitter) until it is
 * answered 2xx, and the endpoint disabled once one has failed for the whole retry period. Each endpoint runs on
 * its own, so a slow or hanging one holds up nothing but itself: its customer's other endpoints deliver beside
 * it, and other customers' deliveries go over other connections (see clients/webhook-sender.ts).
 */
class EndpointWorker {
  private running = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private cursor: CursorDocument | undefined;
  private readonly abort = new AbortController();
  private readonly secret: string;
  /** The event this endpoint is trying to deliver (retrying it after a failure); undefined when caught up. */
  private waitingFor: EventDocument | undefined;

  constructor(
    private endpoint: EndpointDocument,
    private readonly options: DeliveryOptions,
    private readonly slots: DeliverySlots,
  ) {
    this.secret = options.secrets.open(endpoint.secret);
  }

  get customerId(): string {
    return this.endpoint.customer_id;
  }

  get endpointId(): string {
    return this.endpoint._id;
  }

  /** Events behind, as far as this process knows the customer's latest; and how long the next has waited. */
  backlog(nowMs: number): { events: number; oldestAgeMs: number } {
    const delivered = this.cursor?.delivered ?? 0;
    const head = this.options.events.knownHead(this.customerId) ?? delivered;
    const oldestAgeMs = this.waitingFor ? Math.max(0, nowMs - this.waitingFor.recorded_at.getTime()) : 0;
    return { events: Math.max(0, head - delivered), oldestAgeMs };
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run()
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, endpoint_id: this.endpoint._id }, 'webhook delivery failed; retrying shortly');
        this.later(this.options.settings.retryBaseMs);
      })
      .finally(() => {
        this.running = false;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
  }

  private later(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delayMs);
    this.timer.unref();
  }

  private async saveCursor(update: Partial<CursorDocument>, unset: Array<keyof CursorDocument> = []): Promise<void> {
    const id = this.endpoint._id;
    await this.options.store.cursors.updateOne(
      { _id: id },
      { $set: update, ...(unset.length ? { $unset: Object.fromEntries(unset.map((field) => [field, ''])) } : {}) },
    );
    this.cursor = { ...this.cursor!, ...update };
    for (const field of unset) delete (this.cursor as Partial<CursorDocument>)[field];
  }

  private subscribed(event: EventDocument): boolean {
    // A test send goes to the endpoint it names, and to no other.
    if (event.type === pingEventType) return event.data.endpoint_id === this.endpoint._id;
    return this.endpoint.enabled_events.includes('*') || this.endpoint.enabled_events.includes(event.type);
  }

  private async run(): Promise<void> {
    const { store, events, settings } = this.options;
    this.cursor ??= (await store.cursors.findOne({ _id: this.endpoint._id })) ?? undefined;
    if (!this.cursor) {
      this.cursor = { _id: this.endpoint._id, delivered: await events.head(this.customerId), failures: 0 };
      await store.cursors.insertOne(this.cursor).catch(() => undefined);
    }
    while (!this.stopped) {
      const waitMs = (this.cursor.next_attempt_at?.getTime() ?? 0) - this.options.nowMs();
      if (waitMs > 0) {
        this.later(waitMs);
        return;
      }
      const event = await events.at(this.customerId, this.cursor.delivered + 1);
      this.waitingFor = event ?? undefined;
      if (!event) return;
      if (!this.subscribed(event)) {
        await this.saveCursor({ delivered: this.cursor.delivered + 1 });
        continue;
      }
      const outcome = await this.deliver(event);
      if (this.stopped) return;
      if (outcome.ok) {
        deliveryLag.record(Math.max(0, this.options.nowMs() - event.recorded_at.getTime()), { 'mtx.event_type': event.type });
        await this.saveCursor({ delivered: this.cursor.delivered + 1, failures: 0 }, ['failing_since', 'next_attempt_at', 'last_error']);
        continue;
      }
      const nowMs = this.options.nowMs();
      const failingSince = this.cursor.failing_since ?? new Date(nowMs);
      if (retriesExhausted(failingSince.getTime(), nowMs, settings.retryForMs)) {
        this.stop();
        disabledCounter.add(1);
        await this.options.disable(
          this.endpoint,
          `deliveries failed for ${Math.round(settings.retryForMs / 3_600_000)} h: ${outcome.error}`,
        );
        return;
      }
      const failures = this.cursor.failures + 1;
      await this.saveCursor({
        failures,
        failing_since: failingSince,
        next_attempt_at: new Date(nowMs + retryDelayMs(failures, settings.retryBaseMs, settings.retryMaxMs, this.options.random)),
        last_error: outcome.error ?? 'failed',
      });
    }
  }

  private async deliver(event: EventDocument): Promise<{ ok: boolean; error?: string }> {
    const body = deliveryBody(event);
    await this.slots.take(this.customerId);
    const span = tracer.startSpan('notifications.deliver', {
      kind: SpanKind.CLIENT,
      attributes: {
        'mtx.customer_id': this.customerId,
        'mtx.endpoint_id': this.endpoint._id,
        'mtx.event_id': event.event_id,
        'mtx.event_type': event.type,
        'mtx.attempt': (this.cursor?.failures ?? 0) + 1,
      },
    });
    try {
      // The timeout starts now that the delivery has its slot: the sender never queues it behind another.
      const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.options.settings.timeoutMs)]);
      const headers = {
        'mtx-signature': signatureHeader(this.secret, body, Math.floor(this.options.nowMs() / 1000)),
        'mtx-event-id': event.event_id,
        'mtx-event-type': event.type,
        'user-agent': 'mtx-webhooks/1',
      };
      const startedAt = performance.now();
      const outcome = await this.options.sender.send({ customerId: this.customerId, url: this.endpoint.url, body, headers, signal });
      deliveryDuration.record(performance.now() - startedAt, { 'mtx.event_type': event.type });
      deliveriesCounter.add(1, { 'mtx.event_type': event.type, 'mtx.outcome': outcome.ok ? 'delivered' : 'failed' });
      if (outcome.status) span.setAttribute('http.response.status_code', outcome.status);
      if (!outcome.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? 'failed' });
      return outcome;
    } finally {
      span.end();
      this.slots.give(this.customerId);
    }
  }
}

/** Every enabled endpoint's worker, woken when its customer has a new event. */
export class Dispatcher {
  private readonly workers = new Map<string, EndpointWorker>();
  private readonly byCustomer = new Map<string, Set<string>>();
  private readonly slots: DeliverySlots;
  private active = false;

  private readonly observeBacklog: BatchObservableCallback = (observer) => {
    const nowMs = this.options.nowMs();
    for (const worker of this.workers.values()) {
      const { events, oldestAgeMs } = worker.backlog(nowMs);
      const attributes = { 'mtx.endpoint_id': worker.endpointId };
      observer.observe(endpointBacklog, events, attributes);
      observer.observe(endpointOldestAge, oldestAgeMs, attributes);
    }
  };

  constructor(private readonly options: DeliveryOptions) {
    this.slots = new DeliverySlots(options.settings.inFlightMax, options.settings.customerInFlightMax);
  }

  /** Starts delivering to these endpoints (this replica leads). */
  start(endpoints: EndpointDocument[]): void {
    if (!this.active) observeTogether('notifications', this.observeBacklog, [endpointBacklog, endpointOldestAge]);
    this.active = true;
    this.reconcile(endpoints);
  }

  /** Makes the workers match the enabled endpoints: starts the missing, stops those no longer enabled. */
  reconcile(endpoints: EndpointDocument[]): void {
    if (!this.active) return;
    const enabled = new Set(endpoints.map((endpoint) => endpoint._id));
    for (const [id, worker] of this.workers)
      if (!enabled.has(id)) this.follow({ _id: id, customer_id: worker.customerId, status: 'disabled' } as EndpointDocument);
    for (const endpoint of endpoints) this.follow(endpoint);
  }

  /** Follows an endpoint's change: a new or enabled one starts delivering, a deleted or disabled one stops. */
  follow(endpoint: EndpointDocument): void {
    if (!this.active) return;
    const existing = this.workers.get(endpoint._id);
    if (endpoint.status !== 'enabled' || endpoint.deleted_at) {
      existing?.stop();
      this.workers.delete(endpoint._id);
      const ids = this.byCustomer.get(endpoint.customer_id);
      ids?.delete(endpoint._id);
      if (ids?.size === 0) {
        this.byCustomer.delete(endpoint.customer_id);
        this.options.sender.release(endpoint.customer_id);
      }
      return;
    }
    if (existing) return;
    const worker = new EndpointWorker(endpoint, this.options, this.slots);
    this.workers.set(endpoint._id, worker);
    const ids = this.byCustomer.get(endpoint.customer_id) ?? new Set<string>();
    ids.add(endpoint._id);
    this.byCustomer.set(endpoint.customer_id, ids);
    worker.wake();
  }

  wakeCustomer(customerId: string): void {
    for (const id of this.byCustomer.get(customerId) ?? []) this.workers.get(id)?.wake();
  }

  get endpoints(): number {
    return this.workers.size;
  }

  stop(): void {
    if (this.active)
      metrics.getMeter('notifications').removeBatchObservableCallback(this.observeBacklog, [endpointBacklog, endpointOldestAge]);
    this.active = false;
    for (const worker of this.workers.values()) worker.stop();
    for (const customerId of this.byCustomer.keys()) this.options.sender.release(customerId);
    this.workers.clear();
    this.byCustomer.clear();
  }
}
