import type { Collection, Db } from 'mongodb';
import type { EncryptedSecret } from '@mtx/shared/secret-box';

/**
 * The notifier's collections. Every read on a hot path is a `findOne({_id})` and every exclusive decision an
 * insert (FerretDB scans on anything else and does not isolate updates); documents updated in place (an
 * endpoint's status, a cursor) have one writer, the notifier.
 */

export type EndpointStatus = 'enabled' | 'disabled';

/** `_id: we_…`. Its signing secret is sealed with WEBHOOK_SECRET_KEY. */
export interface EndpointDocument {
  _id: string;
  customer_id: string;
  url: string;
  enabled_events: string[];
  description: string;
  secret: EncryptedSecret;
  status: EndpointStatus;
  disabled_reason: string;
  created_at: Date;
  deleted_at?: Date;
}

/** `_id: <customer>:<n>`: the customer's n-th endpoint, so listing is a walk over `_id`s. */
export interface EndpointSlotDocument {
  _id: string;
  endpoint_id: string;
}

/** `_id: <customer>:<n>`: the customer's n-th recorded event, in the order it was recorded. */
export interface EventDocument {
  _id: string;
  customer_id: string;
  event_id: string;
  type: string;
  /** Unix seconds, as the event says when it happened. */
  created: number;
  data: Record<string, unknown>;
  recorded_at: Date;
}

/** `_id: evt_…`: where an event sits in its customer's sequence; the insert that records it once. */
export interface EventIdDocument {
  _id: string;
  customer_id: string;
  number: number;
}

/** `_id: we_…`: how far an endpoint has got, and its retry state when failing. */
export interface CursorDocument {
  _id: string;
  /** The number of the last event delivered (or not subscribed to). */
  delivered: number;
  failures: number;
  failing_since?: Date;
  next_attempt_at?: Date;
  last_error?: string;
}

/** `_id: <stream>`: the last stream sequence whose event is recorded; the leader reads on from the next. */
export interface IntakeCheckpointDocument {
  _id: string;
  sequence: number;
  updated_at: Date;
}

export interface NotificationsStore {
  endpoints: Collection<EndpointDocument>;
  endpointSlots: Collection<EndpointSlotDocument>;
  events: Collection<EventDocument>;
  eventIds: Collection<EventIdDocument>;
  cursors: Collection<CursorDocument>;
  intakeCheckpoints: Collection<IntakeCheckpointDocument>;
}

export function createNotificationsStore(database: Db): NotificationsStore {
  return {
    endpoints: database.collection<EndpointDocument>('endpoints'),
    endpointSlots: database.collection<EndpointSlotDocument>('endpoint_slots'),
    events: database.collection<EventDocument>('events'),
    eventIds: database.collection<EventIdDocument>('event_ids'),
    cursors: database.collection<CursorDocument>('cursors'),
    intakeCheckpoints: database.collection<IntakeCheckpointDocument>('intake_checkpoints'),
  };
}
