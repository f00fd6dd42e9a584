import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  StorageType,
  nanos,
} from 'nats';
import { AppError } from '@mtx/shared/errors';
import { isAlreadyStored, publishCreateOnly } from '@mtx/shared/jetstream-create-only';
import { ensureStream } from '@mtx/shared/jetstream-replicas';
import type { Logger } from '@mtx/shared/logger';
import type { TopupDocument } from '../store/payments-store';

/** What the crediting needs of a confirmed provider transaction, recorded before its postback is acknowledged. */
export interface InboxRecord {
  /** `<provider>:<provider transaction id>`: one record per transaction, ever. */
  id: string;
  provider: string;
  topup_id: number;
  customer_id: string;
  transaction_id: string;
  /** Smallest units; for `cumulative_of`, the running total of that provider payment. */
  amount_units: string;
  /** ISO 8601: when the coin reached the address, as the provider reported it. */
  received_at: string;
  /** The provider said whether the coin came after its quote (BTCPay); absent, `received_at` decides. */
  after_expiration?: boolean;
  /** The provider payment whose running total `amount_units` is (NOWPayments). */
  cumulative_of?: string;
  /** ISO 8601. */
  recorded_at: string;
  /** The postback's trace (W3C `traceparent`), so the credit's span joins it even after a crash and a redelivery. */
  trace_context?: Record<string, string>;
  /**
   * The top-up as stored when the postback was recorded (top-ups are never updated), so a crediting replica that
   * did not quote it credits without reading it; absent from records written before it was added.
   */
  topup?: TopupSnapshot;
}

/** A stored top-up as JSON carries it: its dates as ISO 8601 strings. */
export type TopupSnapshot = Omit<TopupDocument, 'created_at' | 'expires_at'> & { created_at: string; expires_at: string };

/** A record handed to the crediting worker; unsettled, it comes back after the redelivery delay. */
export interface InboxDelivery {
  record: InboxRecord;
  /** 1 the first time this record is delivered, then one more at each redelivery. */
  attempt: number;
  /** The record is credited (or needs nothing): it is not delivered again. */
  settle(): void;
  /**
   * Hands the record back: delivered again after `delayMs` (a credit that failed), or at once to any replica (a
   * stopping one does this with what it holds). Without a settle or a release, it is delivered again only if
   * this process stops renewing it (a crash).
   */
  release(delayMs?: number): void;
}

/** The postback inbox as payments uses it (docs/architecture.md, "Money in"). */
export interface PostbackInbox {
  /** Stores the record unless one with its id exists: `recorded` once, `duplicate` after. */
  record(record: InboxRecord): Promise<'recorded' | 'duplicate'>;
  /** Starts handing every unsettled record to `take`, oldest first, at most `pendingMax` unsettled at once. */
  deliver(take: (delivery: InboxDelivery) => void): Promise<void>;
  /** Age of the oldest record not settled yet, 0 when none: what an SRE alerts on. */
  oldestUnsettledAgeMs(): Promise<number>;
  /**
   * Stops delivering and renewing. What was delivered can still be settled or released (while the connection
   * lasts); what is neither is delivered again after the delay, as after a crash.
   */
  stop(): Promise<void>;
}

export interface JetStreamInboxOptions {
  /** The deployment (its database prefix), so stacks sharing a NATS server keep separate inboxes. */
  deployment: string;
  replicas: number;
  /** How long a record (the transaction's receipt) is kept: a redelivery within it is a `duplicate`. */
  retentionMs: number;
  /** An unsettled record is delivered again after this (a crash's, or a credit the wallet refused). */
  redeliverAfterMs: number;
  /** Records delivered and not yet settled, across every replica: the crediting backlog's bound. */
  pendingMax: number;
  /** The stream's size bound; past it new postbacks are refused (503, the provider retries), old ones kept. */
  bytesMax: number;
  logger: Logger;
}

/** One small append, R1 or R3: past this the stream is not answering (a leader election takes 4 to 9 s). */
const recordTimeoutMs = 3_000;
const managerTimeoutMs = 5_000;
const consumerName = 'crediting';
const pullExpiresMs = 5_000;
const pullPauseMinMs = 100;
const pullPauseMaxMs = 5_000;

export function inboxChannel(deployment: string): { stream: string; subjectRoot: string } {
  const name = deployment.replace(/[^A-Za-z0-9_-]/g, '_') || 'default';
  return { stream: `PAYMENTS_INBOX_${name}`, subjectRoot: `payments.inbox.${name}` };
}

function subjectOf(subjectRoot: string, id: string): string {
  // A provider's transaction id may hold any character; a subject token may not hold `.`, `*`, `>` or spaces.
  return `${subjectRoot}.${Buffer.from(id).toString('base64url')}`;
}

/** The stored record of a transaction, or null: for operators' tools and tests. */
export async function readInboxRecord(nats: NatsConnection, deployment: string, id: string): Promise<InboxRecord | null> {
  const { stream, subjectRoot } = inboxChannel(deployment);
  const manager = await nats.jetstreamManager({ timeout: managerTimeoutMs });
  const stored = await manager.streams.getMessage(stream, { last_by_subj: subjectOf(subjectRoot, id) }).catch(() => null);
  return stored ? (JSON.parse(new TextDecoder().decode(stored.data)) as InboxRecord) : null;
}

/** Records recorded and not settled yet (waiting, or delivered to a worker): for operators' tools and tests. */
export async function countUnsettled(nats: NatsConnection, deployment: string): Promise<number> {
  const manager = await nats.jetstreamManager({ timeout: managerTimeoutMs });
  const info = await manager.consumers.info(inboxChannel(deployment).stream, consumerName);
  return info.num_pending + info.num_ack_pending;
}

/**
 * The inbox in a JetStream stream, one subject per provider transaction, at most one message per subject. A
 * record is an append with an expected last subject sequence of 0, which the stream's leader applies atomically:
 * the first delivery of a transaction is stored (once a majority of the stream's replicas hold it), every later
 * one is refused, and that refusal is the `duplicate` answer. One append per postback, where a document store
 * needs a record and a receipt. A durable consumer with explicit acknowledgements is the crediting queue: all
 * replicas share it, a record is settled by its acknowledgement, and one left unsettled by a crash or a refused
 * credit is delivered again after `redeliverAfterMs` (the sweep), to whichever replica asks.
 */
export class JetStreamInbox implements PostbackInbox {
  private messages: ConsumerMessages | undefined;
  // Delivered here and not settled yet, by stream sequence, with when each was delivered or last renewed.
  private readonly held = new Map<number, { message: JsMsg; renewedAtMs: number }>();
  private renewTimer: NodeJS.Timeout | undefined;
  private lastWarningAtMs = 0;
  private delivering = false;
  private loop: Promise<void> | undefined;
  private refusedSinceWarning = 0;
  private readonly channel: { stream: string; subjectRoot: string };
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  // Made on first use: building the inbox asks NATS nothing (docs/architecture.md, "Code layout").
  private jetstreamClient: JetStreamClient | undefined;
  private manager: JetStreamManager | undefined;

  /** The inbox, not yet prepared: nothing is asked of NATS until `prepare` (or a first record). */
  constructor(
    private readonly connection: NatsConnection,
    private readonly options: JetStreamInboxOptions,
  ) {
    this.channel = inboxChannel(options.deployment);
  }

  /** A prepared inbox, for tools and tests that use one on its own. */
  static async open(nats: NatsConnection, options: JetStreamInboxOptions): Promise<JetStreamInbox> {
    const inbox = new JetStreamInbox(nats, options);
    await inbox.prepare();
    return inbox;
  }

  /** Creates the stream and its consumer when missing; refuses a replica count the deployment cannot hold. */
  async prepare(): Promise<void> {
    await this.ensure();
  }

  private get jetstream(): JetStreamClient {
    this.jetstreamClient ??= this.connection.jetstream({ timeout: recordTimeoutMs });
    return this.jetstreamClient;
  }

  private async jetstreamManager(): Promise<JetStreamManager> {
    this.manager ??= await this.connection.jetstreamManager({ timeout: managerTimeoutMs });
    return this.manager;
  }

  private async ensure(): Promise<void> {
    const { stream, subjectRoot } = this.channel;
    const { replicas, logger } = this.options;
    const manager = await this.jetstreamManager();
    await ensureStream(
      manager,
      {
        name: stream,
        subjects: [`${subjectRoot}.>`],
        storage: StorageType.File,
        num_replicas: replicas,
        max_msgs_per_subject: 1,
        max_age: nanos(this.options.retentionMs),
        max_bytes: this.options.bytesMax,
        discard: DiscardPolicy.New,
      },
      { setting: 'PAYMENTS_INBOX_REPLICAS', logger },
    );
    const consumer = {
      durable_name: consumerName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(this.options.redeliverAfterMs),
      max_ack_pending: this.options.pendingMax,
      max_deliver: -1,
    };
    const existing = await manager.consumers.info(stream, consumerName).catch(() => undefined);
    if (!existing) await manager.consumers.add(stream, consumer);
    else if (existing.config.ack_wait !== consumer.ack_wait || existing.config.max_ack_pending !== consumer.max_ack_pending)
      // Settings a deployment changed: the consumer takes them without losing its position.
      await manager.consumers.update(stream, consumerName, { ack_wait: consumer.ack_wait, max_ack_pending: consumer.max_ack_pending });
  }

  async record(record: InboxRecord): Promise<'recorded' | 'duplicate'> {
    try {
      await publishCreateOnly(
        this.connection,
        subjectOf(this.channel.subjectRoot, record.id),
        this.encoder.encode(JSON.stringify(record)),
        recordTimeoutMs,
      );
      return 'recorded';
    } catch (error) {
      if (isAlreadyStored(error)) return 'duplicate';
      // NATS down, a stream electing its leader, the stream full: nothing recorded, and the provider delivers again.
      this.warnRefused(error);
      throw new AppError('unavailable', 'the postback could not be recorded; deliver it again shortly');
    }
  }

  async deliver(take: (delivery: InboxDelivery) => void): Promise<void> {
    // Left from before a stop, neither settled nor released: the stream delivers them again by itself.
    this.held.clear();
    this.delivering = true;
    const firstPull = await this.pull(take);
    this.loop = this.keepPulling(take, firstPull);
    // A record waiting behind a backlog here is still being worked on: renewing it keeps the stream from handing
    // it to another replica (double work that would only deepen the backlog). A crash stops the renewals, and
    // the stream delivers what this process held once the delay has passed.
    const renewEveryMs = Math.max(50, Math.floor(this.options.redeliverAfterMs / 3));
    this.renewTimer = setInterval(() => {
      const dueMs = Date.now() - renewEveryMs;
      for (const entry of this.held.values()) {
        if (entry.renewedAtMs > dueMs) continue;
        entry.message.working();
        entry.renewedAtMs = Date.now();
      }
    }, renewEveryMs);
    this.renewTimer.unref();
  }

  /**
   * Pulls again whenever the pull ends: a consumer whose leader moved (a node killed or frozen, a rolling
   * restart) or a connection that came back can end it, and a crediting worker that stops taking records
   * leaves every postback acknowledged and not credited.
   */
  private async keepPulling(take: (delivery: InboxDelivery) => void, first: ConsumerMessages): Promise<void> {
    let messages: ConsumerMessages | undefined = first;
    let pauseMs = pullPauseMinMs;
    while (this.delivering) {
      if (messages) {
        const ended = await messages.closed().catch((error: unknown) => error);
        if (!this.delivering) return;
        this.options.logger.warn({ err: ended instanceof Error ? ended : undefined }, 'inbox deliveries ended; pulling again');
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      if (!this.delivering) return;
      messages = await this.pull(take).catch((error: unknown) => {
        this.options.logger.warn({ err: error }, 'could not pull from the inbox; trying again');
        return undefined;
      });
      pauseMs = messages ? pullPauseMinMs : Math.min(pullPauseMaxMs, pauseMs * 2);
    }
  }

  private async pull(take: (delivery: InboxDelivery) => void): Promise<ConsumerMessages> {
    const consumer = await this.jetstream.consumers.get(this.channel.stream, consumerName);
    // The client asks for what the worker can hold; the server's max_ack_pending bounds it across replicas. A
    // short expiry (heartbeats at half of it) notices within seconds a pull that a moved leader no longer serves.
    const messages = await consumer.consume({
      max_messages: Math.min(this.options.pendingMax, 1_024),
      expires: pullExpiresMs,
      callback: (message) => {
        const record = this.parse(message);
        if (!record) return;
        const sequence = message.seq;
        this.held.set(sequence, { message, renewedAtMs: Date.now() });
        take({
          record,
          attempt: message.info.redeliveryCount,
          settle: () => {
            if (this.held.delete(sequence)) message.ack();
          },
          release: (delayMs) => {
            if (this.held.delete(sequence)) message.nak(delayMs);
          },
        });
      },
    });
    this.messages = messages;
    return messages;
  }

  async oldestUnsettledAgeMs(): Promise<number> {
    const manager = await this.jetstreamManager();
    const info = await manager.consumers.info(this.channel.stream, consumerName);
    if (info.num_pending + info.num_ack_pending === 0) return 0;
    // The first sequence past the acknowledgement floor is the oldest record not settled.
    const oldest = await manager.streams.getMessage(this.channel.stream, { seq: info.ack_floor.stream_seq + 1 }).catch(() => undefined);
    // Against the wall clock: the stream stamps records with its servers' time.
    return oldest ? Math.max(0, Date.now() - oldest.time.getTime()) : 0;
  }

  async stop(): Promise<void> {
    this.delivering = false;
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    await this.messages?.close().catch(() => undefined);
    this.messages = undefined;
    await this.loop;
    this.loop = undefined;
  }

  /** One line a second at most: an outage refuses every postback, and the provider's retries are many. */
  private warnRefused(error: unknown): void {
    this.refusedSinceWarning += 1;
    const nowMs = Date.now();
    if (nowMs - this.lastWarningAtMs < 1_000) return;
    this.options.logger.warn({ err: error, refused: this.refusedSinceWarning }, 'the postback inbox did not take records');
    this.lastWarningAtMs = nowMs;
    this.refusedSinceWarning = 0;
  }

  private parse(message: JsMsg): InboxRecord | undefined {
    try {
      return JSON.parse(this.decoder.decode(message.data)) as InboxRecord;
    } catch (error) {
      // Nothing this service wrote; kept in the stream for an operator, never delivered again.
      this.options.logger.error({ err: error, seq: message.seq }, 'unreadable inbox record; left for an operator');
      message.term();
      return undefined;
    }
  }
}
