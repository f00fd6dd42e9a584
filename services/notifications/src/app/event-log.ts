import { customerEventIdPattern, type CustomerEvent } from '@mtx/shared/customer-events';
import { AppError } from '@mtx/shared/errors';
import { ClaimedSequence } from '@mtx/shared/claimed-sequence';
import { insertIfAbsent } from '@mtx/shared/mongo';
import type { EventDocument, NotificationsStore } from '../store/notifications-store';

const readChunk = 32;

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
  /** Each customer's numbers. */
  private readonly sequence: ClaimedSequence;

  constructor(
    private readonly store: Pick<NotificationsStore, 'events' | 'eventIds'>,
    private readonly nowMs: () => number,
  ) {
    this.sequence = new ClaimedSequence(async (_id) => (await store.events.findOne({ _id }, { projection: { _id: 1 } })) !== null);
  }

  private entry(customerId: string, number: number): Promise<EventDocument | null> {
    return this.store.events.findOne({ _id: `${customerId}:${number}` });
  }

  /** The number of the customer's latest event (0 for none). */
  head(customerId: string): Promise<number> {
    return this.sequence.head(customerId);
  }

  /** The latest event number this process has seen recorded or looked up for the customer (no store access). */
  knownHead(customerId: string): number | undefined {
    return this.sequence.knownHead(customerId);
  }

  at(customerId: string, number: number): Promise<EventDocument | null> {
    return this.entry(customerId, number);
  }

  /** Records an event once; false when its id was recorded before. */
  async record(event: CustomerEvent): Promise<boolean> {
    if (await this.store.eventIds.findOne({ _id: event.id })) return false;
    let number = 0;
    await this.sequence.claim(event.customer_id, (_id, claimed) => {
      number = claimed;
      return insertIfAbsent(this.store.events, {
        _id,
        customer_id: event.customer_id,
        event_id: event.id,
        type: event.type,
        created: event.created,
        data: event.data,
        recorded_at: new Date(this.nowMs()),
      });
    });
    await insertIfAbsent(this.store.eventIds, { _id: event.id, customer_id: event.customer_id, number });
    return true;
  }

  /** The customer's events newer than the retention, newest first, a page at a time. */
  async list(
    customerId: string,
    query: { limit: number; startingAfter?: string; type?: string; retentionMs: number },
  ): Promise<{ data: ListedEvent[]; has_more: boolean }> {
    let number = await this.head(customerId);
    if (query.startingAfter) {
      const cursor = customerEventIdPattern.test(query.startingAfter)
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
