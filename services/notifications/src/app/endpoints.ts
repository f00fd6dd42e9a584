import { customerEventTypes } from '@mtx/shared/customer-events';
import { AppError } from '@mtx/shared/errors';
import { lastPresent } from '@mtx/shared/gallop';
import { insertIfAbsent } from '@mtx/shared/mongo';
import { randomBase62, type SecretBox } from '@mtx/shared/secret-box';
import { checkEndpointAddresses, parseEndpointUrl, type Resolve } from '../domain/url-policy';
import type { EndpointDocument, NotificationsStore } from '../store/notifications-store';
import type { EventLog } from './event-log';

export interface EndpointView {
  id: string;
  url: string;
  enabled_events: string[];
  description: string;
  status: string;
  disabled_reason: string;
  created_at: string;
  secret?: string;
  deleted?: boolean;
}

export interface EndpointsOptions {
  store: NotificationsStore;
  secrets: SecretBox;
  events: EventLog;
  resolve: Resolve;
  allowPrivate: boolean;
  endpointsPerCustomerMax: number;
  nowMs: () => number;
  /** Told of every endpoint created, deleted or disabled, so deliveries follow at once. */
  onChange: (endpoint: EndpointDocument) => void;
}

/** Slots a customer may ever use (deleted endpoints keep theirs), bounding the listing walk. */
const slotsMax = 1_000;
const descriptionLengthMax = 200;

export function endpointView(document: EndpointDocument): EndpointView {
  return {
    id: document._id,
    url: document.url,
    enabled_events: document.enabled_events,
    description: document.description,
    status: document.status,
    disabled_reason: document.disabled_reason,
    created_at: document.created_at.toISOString(),
  };
}

/**
 * A customer's webhook endpoints: the URL checked against the address policy, the signing secret made here and
 * shown once (then kept sealed), and the endpoint starting from the customer's next event.
 */
export class Endpoints {
  constructor(private readonly options: EndpointsOptions) {}

  private async slots(customerId: string): Promise<EndpointDocument[]> {
    const { store } = this.options;
    const last = await lastPresent(
      0,
      async (number) => (await store.endpointSlots.findOne({ _id: `${customerId}:${number}` })) !== null,
      slotsMax,
    );
    const slots = await Promise.all(
      Array.from({ length: last }, (_, index) => store.endpointSlots.findOne({ _id: `${customerId}:${index + 1}` })),
    );
    const documents = await Promise.all(slots.map((slot) => (slot ? store.endpoints.findOne({ _id: slot.endpoint_id }) : null)));
    return documents.filter((document): document is EndpointDocument => document !== null && document.customer_id === customerId);
  }

  async list(customerId: string): Promise<EndpointView[]> {
    return (await this.slots(customerId)).filter((document) => !document.deleted_at).map(endpointView);
  }

  async create(customerId: string, input: { url: string; enabled_events: string[]; description: string }): Promise<EndpointView> {
    const { store, allowPrivate } = this.options;
    const url = parseEndpointUrl(input.url, allowPrivate);
    const enabled = [...new Set(input.enabled_events.length === 0 ? ['*'] : input.enabled_events)];
    for (const type of enabled)
      if (type !== '*' && !(customerEventTypes as readonly string[]).includes(type))
        throw new AppError('invalid_request', `unknown event type ${type}; one of ${customerEventTypes.join(', ')} or *`, {
          param: 'enabled_events',
        });
    if (input.description.length > descriptionLengthMax)
      throw new AppError('invalid_request', `description is longer than ${descriptionLengthMax} characters`, { param: 'description' });
    await checkEndpointAddresses(url, allowPrivate, this.options.resolve);
    const existing = await this.slots(customerId);
    if (existing.filter((document) => !document.deleted_at).length >= this.options.endpointsPerCustomerMax)
      throw new AppError('conflict', `a customer has at most ${this.options.endpointsPerCustomerMax} webhook endpoints; delete one first`);

    const secret = `whsec_${randomBase62(32)}`;
    const document: EndpointDocument = {
      _id: `we_${randomBase62(20)}`,
      customer_id: customerId,
      url: url.toString(),
      enabled_events: enabled,
      description: input.description,
      secret: this.options.secrets.seal(secret),
      status: 'enabled',
      disabled_reason: '',
      created_at: new Date(this.options.nowMs()),
    };
    // It starts after the customer's latest event: what happened before it existed is in GET /v1/events.
    const head = await this.options.events.head(customerId);
    await store.cursors.insertOne({ _id: document._id, delivered: head, failures: 0 });
    await store.endpoints.insertOne(document);
    for (let slot = existing.length + 1; slot <= slotsMax; slot++)
      if (await insertIfAbsent(store.endpointSlots, { _id: `${customerId}:${slot}`, endpoint_id: document._id })) break;
    this.options.onChange(document);
    return { ...endpointView(document), secret };
  }

  /** The customer's endpoint, not deleted; 404 otherwise. */
  async owned(customerId: string, endpointId: string): Promise<EndpointDocument> {
    const document = /^we_[0-9A-Za-z]{1,64}$/.test(endpointId) ? await this.options.store.endpoints.findOne({ _id: endpointId }) : null;
    // Another customer's endpoint is reported exactly like one that does not exist.
    if (!document || document.customer_id !== customerId || document.deleted_at)
      throw new AppError('not_found', `no webhook endpoint ${endpointId}`, { param: 'endpoint_id' });
    return document;
  }

  async delete(customerId: string, endpointId: string): Promise<EndpointView> {
    const { store } = this.options;
    const document = await this.owned(customerId, endpointId);
    const deletedAt = new Date(this.options.nowMs());
    await store.endpoints.updateOne(
      { _id: endpointId },
      { $set: { deleted_at: deletedAt, status: 'disabled', disabled_reason: 'deleted' } },
    );
    const deleted = { ...document, deleted_at: deletedAt, status: 'disabled' as const, disabled_reason: 'deleted' };
    this.options.onChange(deleted);
    return { ...endpointView(deleted), deleted: true };
  }

  /** Disables an endpoint whose deliveries failed for the whole retry period. */
  async disable(document: EndpointDocument, reason: string): Promise<void> {
    await this.options.store.endpoints.updateOne({ _id: document._id }, { $set: { status: 'disabled', disabled_reason: reason } });
    this.options.onChange({ ...document, status: 'disabled', disabled_reason: reason });
  }

  /** Every endpoint that delivers, for the dispatcher at start (a background scan). */
  async enabled(): Promise<EndpointDocument[]> {
    return this.options.store.endpoints.find({ status: 'enabled' }).toArray();
  }
}
