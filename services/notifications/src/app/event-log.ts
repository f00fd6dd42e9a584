import type { CustomerEvent } from '@mtx/shared/customer-events';
import { AppError } from '@mtx/shared/errors';
import { lastPresent } from '@mtx/shared/gallop';
import { insertIfAbsent } from '@mtx/shared/mongo';
import type { EventDocument, NotificationsStore } from '../store/notifications-store';

const headsMax = 100_000;
const readChunk = 32;
const appendAttemptsMax = 8;

export interface ListedEvent {
  id: string;
  type: string;
  created: number;
  data: Record<string, unknown>;
}

/**
 * Each customer's events in the order they were recorded: entry n is `<customer>:<n>`, claimed by insert, and
 * `evt_…` says where an event went, so an event announced twice is recorded once. A crash between the two
 * inserts records it again under the next number: delivered twice, with the same id, which receivers dedupe on.
 */
export class EventLog {
  private readonly heads = new Map<string, number>();

  constructor(
    private readonly store: Pick<NotificationsStore, 'events' | 'eventIds'>,
    private readonly nowMs: () => number,
  ) {}

  private entry(customerId: string, number: number): Promise<EventDocument | null> {
    return this.store.events.findOne({ _id: `${customerId}:${number}` });
  }

  /** The number of the customer's latest event (0 for none). */
  async head(customerId: string): Promise<number> {
    const head = await lastPresent(this.heads.get(customerId) ?? 0, async (number) => (await this.entry(customerId, number)) !== null);
    this.remember(customerId, head);
    return head;
  }

  private remember(customerId: string, head: number): void {
    if (!this.heads.has(customerId) && this.heads.size >= headsMax) this.heads.delete(this.heads.keys().next().value!);
    this.heads.set(customerId, Math.max(head, this.heads.get(customerId) ?? 0));
  }

  at(customerId: string, number: number): Promise<EventDocument | null> {
    return this.entry(customerId, number);
  }

  /** Records an event once; false when its id was recorded before. */
  async record(event: CustomerEvent): Promise<boolean> {
    if (await this.store.eventIds.findOne({ _id: event.id })) return false;
    for (let attempt = 0; attempt < appendAttemptsMax; attempt++) {
      const number = (await this.head(event.customer_id)) + 1;
      const inserted = await insertIfAbsent(this.store.events, {
        _id: `${event.customer_id}:${number}`,
        customer_id: event.customer_id,
        event_id: event.id,
        type: event.type,
        created: event.created,
        data: event.data,
        recorded_at: new Date(this.nowMs()),
      });
      if (!inserted) continue;
      this.remember(event.customer_id, number);
      await insertIfAbsent(this.store.eventIds, { _id: event.id, customer_id: event.customer_id, number });
      return true;
    }
    throw new Error(`event ${event.id} could not be recorded after ${appendAttemptsMax} attempts`);
  }

  /** The customer's events newer than the retention, newest first, a page at a time. */
  async list(
    customerId: string,
    query: { limit: number; startingAfter?: string; type?: string; retentionMs: number },
  ): Promise<{ data: ListedEvent[]; has_more: boolean }> {
    let number = await this.head(customerId);
    if (query.startingAfter) {
      const cursor = /^evt_[0-9a-f]{24}$/.test(query.startingAfter)
        ? await this.store.eventIds.findOne({ _id: query.startingAfter })
        : null;
      if (!cursor || cursor.customer_id !== customerId)
        throw new AppError('invalid_request', `starting_after ${query.startingAfter} is not one of this customer's events`, {
          param: 'starting_after',
        });
      number = Math.min(number, cursor.number - 1);
    }
    const oldestSeconds = Math.floor((this.nowMs() - query.retentionMs) / 1000);
    const found: EventDocument[] = [];
    const seen = new Set<string>();
    let done = false;
    while (!done && number >= 1 && found.length <= query.limit) {
      const numbers = Array.from({ length: Math.min(readChunk, number) }, (_, offset) => number - offset);
      number -= numbers.length;
      for (const entry of await Promise.all(numbers.map((each) => this.entry(customerId, each)))) {
        if (!entry) continue;
        if (entry.created < oldestSeconds) {
          done = true;
          break;
        }
        if ((query.type && entry.type !== query.type) || seen.has(entry.event_id)) continue;
        seen.add(entry.event_id);
        found.push(entry);
        if (found.length > query.limit) break;
      }
    }
    return {
      data: found
        .slice(0, query.limit)
        .map((entry) => ({ id: entry.event_id, type: entry.type, created: entry.created, data: entry.data })),
      has_more: found.length > query.limit,
    };
  }
}
