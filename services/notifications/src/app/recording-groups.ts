import type { JsMsg } from 'nats';
import { GroupCommit } from '@mtx/shared/group-commit';
import type { CustomerEvent } from '@mtx/shared/customer-events';

/** Messages taken off the stream and not yet recorded, at most; the intake stops reading while this many wait. */
export const recordingGroupMax = 256;
/**
 * How long a group waits for more events before it is written. Nobody waits on a recording but the webhook it
 * leads to (whose objective is 60 s), and each group costs two store commands whatever its size: under light load
 * every event would otherwise be a group of its own, and at 150 batches/s a 50 ms wait made groups of about 7
 * events, a 200 ms one groups of about 30.
 */
export const recordingLingerMs = 200;

interface Taken {
  message: JsMsg;
  done: () => void;
}

/**
 * The intake's group commit: messages taken off the stream while a group is being recorded wait, and are
 * recorded together as the next group (one claim insert and one entry insert for all of them), one group at a
 * time so the stream's order is kept; a group not yet full waits `recordingLingerMs` for more. `record` answers only once the group is in the store (it retries a failing
 * store itself), or when the intake stops; `recordedThrough` then says the stream sequence recorded so far.
 */
export class RecordingGroups extends GroupCommit<Taken> {
  constructor(
    private readonly intake: {
      parse: (message: JsMsg) => CustomerEvent | undefined;
      /** Records the group's events in order; throws when the store failed (the group is then tried again). */
      record: (events: CustomerEvent[]) => Promise<void>;
      /** Waits before a failed group is tried again; false when the intake is stopping (the group is dropped). */
      pauseBeforeRetry: (error: unknown) => Promise<boolean>;
      /** The last message of a group now recorded. */
      onRecorded: (sequence: number) => Promise<void>;
    },
  ) {
    super({ weightMax: recordingGroupMax, inFlightMax: 1, lingerMs: recordingLingerMs });
  }

  /** Messages waiting for a group. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Resolves once the message's group is recorded (or dropped at stop). */
  add(message: JsMsg): Promise<void> {
    return new Promise((done) => this.enqueue({ message, done }));
  }

  protected weightOf(): number {
    return 1;
  }

  protected async write(batch: Taken[]): Promise<void> {
    const events = batch.flatMap((taken) => {
      const event = this.intake.parse(taken.message);
      return event ? [event] : [];
    });
    try {
      for (;;) {
        try {
          if (events.length > 0) await this.intake.record(events);
          break;
        } catch (error) {
          if (!(await this.intake.pauseBeforeRetry(error))) return;
        }
      }
      await this.intake.onRecorded(batch[batch.length - 1]!.message.seq);
    } finally {
      for (const taken of batch) taken.done();
    }
  }
}
