import { headers, type Msg, type NatsConnection, type Subscription } from 'nats';
import type { Logger } from '@mtx/shared/logger';

/**
 * Per-account request routing: this replica listens on `<root>.<platform>.<account_id>.*` (in the replicas'
 * queue group) only while a terminal of that account is attached to it. So a request for an account with no
 * terminal anywhere gets NATS "no responders" at once, two replicas holding the account share its requests
 * (each request to exactly one), and a terminal that reconnects elsewhere takes its routing with it.
 *
 * `attach` resolves once the subscription is live at the NATS server (a flush): the terminal is welcomed only
 * then, because the terminal host reports the account attached on `welcome` and trades right after.
 */
export class AccountRouting {
  private readonly subscriptions = new Map<string, Subscription>();
  private stopped = false;

  constructor(
    private readonly nats: NatsConnection,
    private readonly options: {
      subjectOf(accountId: string): string;
      queue: string;
      logger: Logger;
      handle(message: Msg): void;
    },
  ) {}

  get accounts(): number {
    return this.subscriptions.size;
  }

  isRouted(accountId: string): boolean {
    return this.subscriptions.has(accountId);
  }

  async attach(accountId: string): Promise<void> {
    if (this.stopped) throw new Error('the connector is stopping: no account is routed here any more');
    if (!this.subscriptions.has(accountId)) {
      const subject = this.options.subjectOf(accountId);
      const subscription = this.nats.subscribe(subject, {
        queue: this.options.queue,
        callback: (error, message) => {
          if (error) {
            this.options.logger.error({ err: error, accountId }, 'account subscription failed');
            return;
          }
          this.options.handle(message);
        },
      });
      this.subscriptions.set(accountId, subscription);
      this.options.logger.info({ accountId, subject, queue: this.options.queue }, 'account routed to this connector');
    }
    await this.nats.flush();
  }

  detach(accountId: string): void {
    const subscription = this.subscriptions.get(accountId);
    if (!subscription) return;
    this.subscriptions.delete(accountId);
    subscription.unsubscribe();
    this.options.logger.info({ accountId }, 'account no longer routed to this connector');
  }

  /** Stops routing every account (requests already taken are the caller's to finish). */
  stop(): void {
    this.stopped = true;
    for (const accountId of [...this.subscriptions.keys()]) this.detach(accountId);
  }
}

/**
 * Answers an error as the NATS services framework does (the `Nats-Service-Error-Code` and `Nats-Service-Error`
 * headers on an empty reply), which execution's terminal client reads.
 */
export function respondError(message: Msg, code: number, description: string): boolean {
  const errorHeaders = headers();
  errorHeaders.set('Nats-Service-Error-Code', String(code));
  errorHeaders.set('Nats-Service-Error', description);
  return message.respond(new Uint8Array(0), { headers: errorHeaders });
}
