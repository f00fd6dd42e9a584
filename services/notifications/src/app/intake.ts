import { AckPolicy, DeliverPolicy, nanos, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { customerEventTypes, type CustomerEvent, type CustomerEventChannel } from '@mtx/shared/customer-events';
import type { Logger } from '@mtx/shared/logger';
import type { EventLog } from './event-log';

const consumerName = 'notifications';
const streamMaxAgeMs = 7 * 24 * 3_600_000;
const duplicateWindowMs = 10 * 60_000;
const restartPauseMs = 1_000;
const jetstreamTimeoutMs = 5_000;

/** JetStream error codes meaning "more replicas than the deployment holds". */
const replicasNotSupported = new Set([10074, 10023]);

function parseEvent(message: JsMsg): CustomerEvent | undefined {
  try {
    const event = JSON.parse(new TextDecoder().decode(message.data)) as CustomerEvent;
    const valid =
      typeof event.id === 'string' &&
      /^evt_[0-9a-f]{24}$/.test(event.id) &&
      (customerEventTypes as readonly string[]).includes(event.type) &&
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
 * Takes customer events off the NOTIFY stream, one at a time in stream order (so each customer's events keep
 * their order), records each in the event log and only then acknowledges it: a notifier killed in between gets
 * it again, and the log records it once. The stream keeps what arrives while no notifier runs (7 days).
 */
export class Intake {
  private messages: ConsumerMessages | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly options: {
      nats: NatsConnection;
      channel: CustomerEventChannel;
      events: EventLog;
      logger: Logger;
      replicas: number;
      /** Told of each customer with a newly recorded event. */
      onRecorded: (customerId: string) => void;
    },
  ) {}

  /** Creates the stream and the durable consumer when missing; refuses a replica count the deployment cannot hold. */
  async ensureStream(): Promise<void> {
    const { nats, replicas, logger } = this.options;
    const { stream, subjectRoot } = this.options.channel;
    const manager = await nats.jetstreamManager({ timeout: jetstreamTimeoutMs });
    try {
      const info = await manager.streams.info(stream).catch(() => undefined);
      if (!info) {
        await manager.streams.add({
          name: stream,
          subjects: [`${subjectRoot}.>`],
          num_replicas: replicas,
          max_age: nanos(streamMaxAgeMs),
          duplicate_window: nanos(duplicateWindowMs),
        });
      } else if (info.config.num_replicas !== replicas) {
        logger.warn(
          { stream, replicas: info.config.num_replicas, setting: replicas },
          `the ${stream} stream exists with ${info.config.num_replicas} replica(s), not NOTIFY_STREAM_REPLICAS=${replicas}; it is used as it is`,
        );
      }
    } catch (error) {
      const apiError = (error as { api_error?: { err_code?: number; description?: string } }).api_error;
      if (apiError?.err_code !== undefined && replicasNotSupported.has(apiError.err_code))
        throw new Error(
          `NOTIFY_STREAM_REPLICAS=${replicas} is more than this NATS deployment holds (${apiError.description}): set it to the number of JetStream servers or fewer (1 on a single server)`,
        );
      throw error;
    }
    await manager.consumers.add(stream, {
      durable_name: consumerName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(30_000),
      max_ack_pending: 1_000,
    });
  }

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const js = this.options.nats.jetstream({ timeout: jetstreamTimeoutMs });
    while (!this.stopped) {
      try {
        const consumer = await js.consumers.get(this.options.channel.stream, consumerName);
        this.messages = await consumer.consume({ max_messages: 256 });
        for await (const message of this.messages) {
          await this.take(message);
          if (this.stopped) break;
        }
      } catch (error) {
        if (this.stopped) return;
        this.options.logger.warn({ err: error }, 'customer event intake interrupted; resuming');
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, restartPauseMs));
    }
  }

  private async take(message: JsMsg): Promise<void> {
    const event = parseEvent(message);
    if (!event) {
      this.options.logger.error({ subject: message.subject, sequence: message.seq }, 'malformed customer event dropped');
      message.term();
      return;
    }
    for (;;) {
      try {
        if (await this.options.events.record(event)) this.options.onRecorded(event.customer_id);
        message.ack();
        return;
      } catch (error) {
        if (this.stopped) return;
        // Not acknowledged: the store is down; the event is kept and taken again.
        this.options.logger.error({ err: error, event_id: event.id }, 'customer event could not be recorded; retrying');
        message.working();
        await new Promise((resolve) => setTimeout(resolve, restartPauseMs));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.loop;
  }
}
