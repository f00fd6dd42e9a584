import { DeliverPolicy, nanos, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { customerEventIdPattern, recordedEventTypes, type CustomerEvent, type CustomerEventChannel } from '@mtx/shared/customer-events';
import { ensureStream } from '@mtx/shared/jetstream-replicas';
import type { Logger } from '@mtx/shared/logger';
import type { NotificationsStore } from '../store/notifications-store';
import type { EventLog } from './event-log';
import { RecordingGroups, recordingGroupMax } from './recording-groups';

/**
 * The checkpoint is written at most this often (and when the intake stops); events after it are read again by a
 * new leader, and the log records each once. An update of its own on the store each time, so not every group.
 */
const checkpointEveryMs = 1_000;
const streamMaxAgeMs = 7 * 24 * 3_600_000;
const duplicateWindowMs = 10 * 60_000;
const restartPauseMs = 1_000;
const jetstreamTimeoutMs = 5_000;

const decoder = new TextDecoder();

function parseEvent(message: JsMsg): CustomerEvent | undefined {
  try {
    const event = JSON.parse(decoder.decode(message.data)) as CustomerEvent;
    const valid =
      typeof event.id === 'string' &&
      customerEventIdPattern.test(event.id) &&
      (recordedEventTypes as readonly string[]).includes(event.type) &&
      typeof event.customer_id === 'string' &&
      event.customer_id.length > 0 &&
      Number.isInteger(event.created) &&
      typeof event.data === 'object' &&
      event.data !== null;
    return valid ? event : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes customer events off the NOTIFY stream strictly in stream order (an ordered consumer: no gap, no
 * reordering, whatever redeliveries a durable consumer would make after a failover), records them in the event
 * log a group at a time (those that arrived while the group before was being recorded), and checkpoints the stream sequence recorded so far in the store. A new leader reads on from the
 * checkpoint; what a killed one recorded after its last checkpoint is read again and the log records it once.
 * The stream keeps events for 7 days, whether or not a notifier runs.
 */
export class Intake {
  private messages: ConsumerMessages | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  /** The stream sequence of the last event recorded, and of the last checkpoint saved. */
  private recorded = 0;
  private saved = 0;
  private savedAtMs = 0;
  /** The last message handed to the groups: once it is recorded, every one before it is. */
  private lastTaken: Promise<void> = Promise.resolve();
  private readonly groups = new RecordingGroups({
    parse: (message) => {
      const event = parseEvent(message);
      if (!event) this.options.logger.error({ subject: message.subject, sequence: message.seq }, 'malformed customer event skipped');
      return event;
    },
    record: async (events) => {
      if (this.stopped) throw new Error('the intake is stopping');
      const recorded = await this.options.events.recordAll(events);
      for (const [index, event] of events.entries()) if (recorded[index]) this.options.onRecorded(event.customer_id);
    },
    // The store is down: the same group is tried again, so nothing after it is recorded before it.
    pauseBeforeRetry: async (error) => {
      if (this.stopped) return false;
      this.options.logger.error({ err: error }, 'customer events could not be recorded; retrying');
      await new Promise((resolve) => setTimeout(resolve, restartPauseMs));
      return !this.stopped;
    },
    onRecorded: async (sequence) => {
      if (this.stopped) return;
      this.recorded = sequence;
      await this.checkpoint().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'intake checkpoint not saved; it is retried'),
      );
    },
  });

  constructor(
    private readonly options: {
      nats: NatsConnection;
      channel: CustomerEventChannel;
      store: Pick<NotificationsStore, 'intakeCheckpoints'>;
      events: EventLog;
      logger: Logger;
      replicas: number;
      /** Told of each customer with a newly recorded event. */
      onRecorded: (customerId: string) => void;
    },
  ) {}

  /** Creates the stream when missing; refuses a replica count the deployment cannot hold. */
  async ensureStream(): Promise<void> {
    const { nats, replicas, logger } = this.options;
    const { stream, subjectRoot } = this.options.channel;
    const manager = await nats.jetstreamManager({ timeout: jetstreamTimeoutMs });
    await ensureStream(
      manager,
      {
        name: stream,
        subjects: [`${subjectRoot}.>`],
        num_replicas: replicas,
        max_age: nanos(streamMaxAgeMs),
        duplicate_window: nanos(duplicateWindowMs),
      },
      { setting: 'NOTIFY_STREAM_REPLICAS', logger },
    );
  }

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const js = this.options.nats.jetstream({ timeout: jetstreamTimeoutMs });
    const { stream } = this.options.channel;
    while (!this.stopped) {
      try {
        const checkpoint = (await this.options.store.intakeCheckpoints.findOne({ _id: stream }))?.sequence ?? 0;
        this.recorded = checkpoint;
        this.saved = checkpoint;
        const consumer = await js.consumers.get(stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: checkpoint + 1 });
        this.messages = await consumer.consume({ max_messages: 256 });
        for await (const message of this.messages) {
          this.lastTaken = this.groups.add(message);
          // Bounded: while a full group waits, nothing more is read (the consumer holds what the server sent).
          if (this.groups.waitingCount >= recordingGroupMax) await this.lastTaken;
          if (this.stopped) break;
        }
      } catch (error) {
        if (this.stopped) break;
        this.options.logger.warn({ err: error }, 'customer event intake interrupted; resuming from the checkpoint');
      }
      // What was taken is recorded (or dropped, stopping) before the checkpoint is read again.
      await this.lastTaken;
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, restartPauseMs));
    }
    await this.lastTaken;
    await this.checkpoint(true).catch(() => undefined);
  }

  /** Saves the sequence recorded so far (at most every checkpointEveryMs unless `now`). */
  private async checkpoint(now = false): Promise<void> {
    if (this.recorded <= this.saved || (!now && Date.now() - this.savedAtMs < checkpointEveryMs)) return;
    const sequence = this.recorded;
    await this.options.store.intakeCheckpoints.updateOne(
      { _id: this.options.channel.stream },
      { $set: { sequence, updated_at: new Date() } },
      { upsert: true },
    );
    this.saved = sequence;
    this.savedAtMs = Date.now();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.loop;
  }
}
