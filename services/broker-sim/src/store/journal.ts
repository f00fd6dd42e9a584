import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from '@mtx/shared/mongo';
import type { Logger } from '@mtx/shared/logger';
import type { Effect } from '../domain/engine';

export interface AccountDocument {
  _id: string;
  server: string;
  login: string;
  platform: 'mt4' | 'mt5';
  password_hash: string;
  password_salt: string;
  initial_balance: number;
  leverage: number;
  margin_mode: 'hedging' | 'netting';
  created_at: Date;
}

/** One operation's effects on one account, in order; `_id` is `<account>:<sequence>`. */
export interface EventDocument {
  _id: string;
  account: string;
  seq: number;
  at: Date;
  effects: Effect[];
}

export interface BrokerStore {
  database: Db;
  accounts: Collection<AccountDocument>;
  events: Collection<EventDocument>;
}

export function createBrokerStore(database: Db): BrokerStore {
  return { database, accounts: database.collection<AccountDocument>('accounts'), events: database.collection<EventDocument>('events') };
}

interface Pending {
  document: EventDocument;
  resolve: () => void;
}

/**
 * Insert-only journal with group commit. Every operation's effects become one event document; callers
 * await durability before answering, while concurrent operations share one insertMany, so throughput does
 * not fall to one round trip per trade. Nothing is ever updated in place (updates on FerretDB scan the
 * collection and are not isolated); the account state is rebuilt by replaying the events in order.
 */
export class Journal {
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly store: BrokerStore,
    private readonly logger: Logger,
    private readonly batchMax = 500,
  ) {}

  append(document: EventDocument): Promise<void> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    return new Promise<void>((resolve) => {
      this.queue.push({ document, resolve });
      if (!this.flushing) this.flushing = this.flushLoop().finally(() => (this.flushing = undefined));
    });
  }

  private async flushLoop(): Promise<void> {
    // Let the operations of this event-loop turn join the same insert.
    await new Promise((resolve) => setImmediate(resolve));
    let failures = 0;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.batchMax);
      try {
        await this.insert(batch.map((item) => item.document));
        this.queue.splice(0, batch.length);
        failures = 0;
        for (const item of batch) item.resolve();
      } catch (error) {
        failures += 1;
        this.logger.error({ err: error, failures }, 'journal write failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** failures, 2_000)));
      }
    }
  }

  private async insert(documents: EventDocument[]): Promise<void> {
    try {
      await this.store.events.insertMany(documents, { ordered: false });
    } catch (error) {
      // A retry after a partly applied insert meets its own earlier documents: those are durable already.
      const writeErrors = (error as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> }).writeErrors;
      const allDuplicates = Array.isArray(writeErrors) && writeErrors.length > 0 && writeErrors.every((item) => (item.code ?? item.err?.code) === 11000);
      if (allDuplicates || isDuplicateKeyError(error)) return;
      throw error;
    }
  }

  /** Waits until everything appended so far is durable. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
  }
}
