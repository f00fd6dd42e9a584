import { customerEventIdPattern, type CustomerEvent } from '@mtx/shared/customer-events';
import { AppError } from '@mtx/shared/errors';
import { ClaimedSequence } from '@mtx/shared/claimed-sequence';
import { InsertBatcher } from '@mtx/shared/insert-batcher';
import { insertIfAbsent } from '@mtx/shared/mongo';
import type { EventDocument, EventIdDocument, NotificationsStore } from '../store/notifications-store';

const readChunk = 32;

export interface ListedEvent {
  id: string;
  type: string;
  created: number;
  data: Record<string, unknown>;
}

/**
 * Each customer's events in the order they were recorded: entry n is `<customer>:<n>`, and `evt_…` says where an
 * event went; inserting `evt_…` is what records an event once, so an event announced twice is recorded once.
 *
 * Events are recorded a group at a time (the intake's group commit): one insert of every event's `evt_…` with the
 * number it is to have, then one insert of their entries. A process that dies between the two leaves claims
 * without entries; the next to take those events (reading on from the intake's checkpoint) finds each claimed and
 * its entry missing, and puts the entry in then. A number another process took first (two leaders for a moment)
 * sends that event the long way: the next free number, and its `evt_…` pointed there.
 */
export class EventLog {
  /** Each customer's numbers. */
  private readonly sequence: ClaimedSequence;
  private readonly claims: InsertBatcher<EventIdDocument>;
  private readonly entries: InsertBatcher<EventDocument>;

  constructor(
    private readonly store: Pick<NotificationsStore, 'events' | 'eventIds'>,
    private readonly nowMs: () => number,
  ) {
    this.sequence = new ClaimedSequence(async (_id) => (await store.events.findOne({ _id }, { projection: { _id: 1 } })) !== null);
    this.claims = new InsertBatcher(store.eventIds, { batchMax: 1_000 });
    this.entries = new InsertBatcher(store.events, { batchMax: 1_000 });
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
    return (await this.recordAll([event]))[0]!;
  }

  /**
   * Records events in the order given, each once: for each, true when this call recorded it, false when its id was
   * recorded before (or earlier in the same call). One group at a time per process (the intake's).
   */
  async recordAll(events: CustomerEvent[]): Promise<boolean[]> {
    const recorded = new Array<boolean>(events.length).fill(false);
    const seen = new Set<string>();
    const fresh: number[] = [];
    for (const [index, event] of events.entries()) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      fresh.push(index);
    }
    for (const customerId of new Set(fresh.map((index) => events[index]!.customer_id))) {
      if (this.sequence.knownHead(customerId) === undefined) await this.sequence.head(customerId);
    }
    // Numbers as if every event were new, which all but replays are.
    const next = new Map<string, number>();
    const numbers = fresh.map((index) => {
      const customerId = events[index]!.customer_id;
      const number = (next.get(customerId) ?? this.sequence.knownHead(customerId) ?? 0) + 1;
      next.set(customerId, number);
      return number;
    });
    const claimed = await this.claims.insertEach(
      fresh.map((index, position) => ({ _id: events[index]!.id, customer_id: events[index]!.customer_id, number: numbers[position]! })),
    );
    if (claimed.some((outcome) => outcome === 'duplicate')) {
      // A replay: one event at a time, so the new ones take the numbers the recorded ones leave.
      for (const [position, index] of fresh.entries()) {
        const event = events[index]!;
        if (claimed[position] === 'duplicate') recorded[index] = await this.repair(event);
        else {
          await this.place(event, numbers[position]!);
          recorded[index] = true;
        }
      }
      return recorded;
    }
    const placed = await this.entries.insertEach(fresh.map((index, position) => this.document(events[index]!, numbers[position]!)));
    for (const [position, index] of fresh.entries()) {
      const event = events[index]!;
      if (placed[position] === 'inserted') this.sequence.advance(event.customer_id, numbers[position]!);
      else if (!(await this.holds(event, numbers[position]!))) await this.place(event, numbers[position]!);
      recorded[index] = true;
    }
    return recorded;
  }

  private document(event: CustomerEvent, number: number): EventDocument {
    return {
      _id: `${event.customer_id}:${number}`,
      customer_id: event.customer_id,
      event_id: event.id,
      type: event.type,
      created: event.created,
      data: event.data,
      recorded_at: new Date(this.nowMs()),
    };
  }

  /** Whether entry `number` of the event's customer is this event. */
  private async holds(event: CustomerEvent, number: number): Promise<boolean> {
    return (await this.entry(event.customer_id, number))?.event_id === event.id;
  }

  /** Puts a claimed event's entry at its customer's next free number, and points its claim there. */
  private async place(event: CustomerEvent, claimedNumber: number): Promise<void> {
    let number = 0;
    await this.sequence.claim(event.customer_id, async (_id, candidate) => {
      number = candidate;
      return (await insertIfAbsent(this.store.events, this.document(event, candidate))) || this.holds(event, candidate);
    });
    if (number !== claimedNumber) await this.store.eventIds.updateOne({ _id: event.id }, { $set: { number } });
  }

  /**
   * An event whose id was claimed before: recorded (false), unless the process that claimed it died before its
   * entry was in; then the entry goes in now, at the claimed number while that is free (true).
   */
  private async repair(event: CustomerEvent): Promise<boolean> {
    const claim = await this.store.eventIds.findOne({ _id: event.id });
    if (!claim || (await this.holds(event, claim.number))) return false;
    if (await insertIfAbsent(this.store.events, this.document(event, claim.number))) {
      this.sequence.advance(event.customer_id, claim.number);
      return true;
    }
    if (await this.holds(event, claim.number)) return false;
    await this.place(event, claim.number);
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
