import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { Document } from 'mongodb';
import { refusedStatements, statementError, duplicateKeyCode, isDuplicateKeyError } from './bulk-write';
import { AppError } from '../service/errors';
import { GroupCommit } from './group-commit';
import type { WriteGate } from './write-gate';

/** What became of one document of a grouped insert. */
export type InsertOutcome = 'inserted' | 'duplicate';

/** What an insert batcher needs of a collection (a driver Collection, or a store adapter over one). */
export interface InsertableCollection<T> {
  readonly collectionName: string;
  insertMany(documents: T[], options: { ordered: boolean }): Promise<unknown>;
  insertOne?(document: T): Promise<unknown>;
}

interface Pending<T> {
  documents: T[];
  resolve: (outcomes: InsertOutcome[]) => void;
  reject: (error: unknown) => void;
  /** The caller's own span for its insert (none when untraced, or when the caller has no span). */
  span: Span | undefined;
}

const tracer = trace.getTracer('mtx-store');

export interface InsertBatcherOptions {
  /** Documents in one insertMany. */
  batchMax?: number;
  /** insertMany commands in flight at once; while they are, new inserts wait and go out together. */
  inFlightMax?: number;
  /** Documents waiting at most; beyond it an insert is refused at once with `unavailable` (503; the caller retries). */
  queueMax?: number;
  /** Shared by every writer of one database, so their commands take the store's write lock one after another. */
  gate?: WriteGate;
  /** No span for its callers' inserts (GroupCommitOptions.untraced says when). */
  untraced?: boolean;
  /** How long a command not yet full waits for more documents (0: the next turn); see GroupCommitOptions. */
  lingerMs?: number;
}

/**
 * The one group commit for inserts into one collection. Each caller still gets its own outcome: its documents
 * inserted, or refused because a unique index already held their key (`insert` rejects with the server's E11000,
 * so `isDuplicateKeyError` holds; `insertEach` reports `duplicate`), or the command's error when the store did not
 * say what it stored (see `refusedStatements`). The command is unordered, so one duplicate never keeps the others
 * out; whether an insert won its key is decided by the store exactly as for insertOne, which is all the ledger and
 * the other insert-linearised records rely on.
 *
 * At low load a document goes out on the next turn of the event loop, alone; under load, documents queue behind
 * the commands in flight and share the next one (one round trip, one SQLite transaction on FerretDB: ~25,000
 * documents/s batched against ~4,500/s one by one).
 */
export class InsertBatcher<T extends Document> extends GroupCommit<Pending<T>> {
  private readonly queueMax: number;
  private readonly traced: boolean;
  private readonly spanName: string;
  private readonly spanAttributes: Attributes;

  constructor(
    private readonly collection: InsertableCollection<T>,
    options: InsertBatcherOptions = {},
  ) {
    super({
      weightMax: options.batchMax ?? 100,
      inFlightMax: options.inFlightMax ?? 2,
      gate: options.gate,
      // Each caller's insert is a span of its own (below), in the caller's trace; the command itself is not
      // traced again by a database instrumentation, which would put it in only one of its callers' traces.
      untraced: true,
      lingerMs: options.lingerMs ?? 0,
    });
    this.queueMax = options.queueMax ?? 10_000;
    this.traced = options.untraced !== true;
    // Built once per collection: the span a trace reader sees for a durable write, named as database clients name
    // theirs (`insert <collection>`).
    this.spanName = `insert ${collection.collectionName}`;
    const databaseName = (collection as { dbName?: unknown }).dbName;
    this.spanAttributes = {
      'db.system.name': 'mongodb',
      'db.operation.name': 'insert',
      'db.collection.name': collection.collectionName,
      ...(typeof databaseName === 'string' ? { 'db.namespace': databaseName } : {}),
    };
  }

  /** Inserts one document; rejects with E11000 when a unique index already held its key. */
  async insert(document: T): Promise<void> {
    const [outcome] = await this.insertEach([document]);
    if (outcome === 'duplicate') throw statementError({ index: 0, code: duplicateKeyCode, message: 'E11000 duplicate key error' });
  }

  /** Resolves to false when a unique index already held the key, like `insertIfAbsent`. */
  async insertIfAbsent(document: T): Promise<boolean> {
    try {
      await this.insert(document);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Idempotent inserts: a document whose key is already there counts as written. */
  async insertAll(documents: T[]): Promise<void> {
    await this.insertEach(documents);
  }

  /** Inserts that claim: each document's outcome, `duplicate` when its key was taken before. */
  insertEach(documents: T[]): Promise<InsertOutcome[]> {
    if (documents.length === 0) return Promise.resolve([]);
    if (this.waitingWeight + documents.length > this.queueMax) {
      return Promise.reject(
        new AppError(
          'unavailable',
          `${this.queueMax} inserts into ${this.collection.collectionName} are already waiting for the store; retry shortly`,
        ),
      );
    }
    return new Promise<InsertOutcome[]>((resolve, reject) => this.enqueue({ documents, resolve, reject, span: this.callerSpan() }));
  }

  /**
   * A span from the caller's enqueue to its outcome, so it shows what the caller waited (the command it shared
   * included), in the caller's trace. Only under a recording span, as the database instrumentation did
   * (requireParentSpan): a write outside any request would otherwise be a trace of its own.
   */
  private callerSpan(): Span | undefined {
    if (!this.traced) return undefined;
    const active = context.active();
    if (!trace.getSpan(active)?.isRecording()) return undefined;
    return tracer.startSpan(this.spanName, { kind: SpanKind.CLIENT, attributes: this.spanAttributes }, active);
  }

  protected weightOf(entry: Pending<T>): number {
    return entry.documents.length;
  }

  protected async write(batch: Array<Pending<T>>): Promise<void> {
    const documents = batch.flatMap((entry) => entry.documents);
    try {
      // One document goes as insertOne where the collection has it: a failure then comes as the server's or the
      // network's own error, not one wrapped in a bulk-write error.
      if (documents.length === 1 && this.collection.insertOne) await this.collection.insertOne(documents[0]!);
      else await this.collection.insertMany(documents, { ordered: false });
      for (const entry of batch) {
        endSpan(entry.span, documents.length, undefined);
        entry.resolve(entry.documents.map(() => 'inserted'));
      }
    } catch (error) {
      const refused = refusedStatements(error, documents.length);
      if (!refused) {
        // Nothing says which documents were stored: every caller fails and retries idempotently.
        for (const entry of batch) {
          endSpan(entry.span, documents.length, error);
          entry.reject(error);
        }
        return;
      }
      const byIndex = new Map(refused.map((statement) => [statement.index, statement]));
      let offset = 0;
      for (const entry of batch) {
        const outcomes: InsertOutcome[] = [];
        let failure: unknown;
        entry.documents.forEach((_, position) => {
          const statement = byIndex.get(offset + position);
          if (!statement) outcomes.push('inserted');
          else if (statement.code === duplicateKeyCode) outcomes.push('duplicate');
          else failure ??= statementError(statement);
        });
        offset += entry.documents.length;
        // A duplicate is an answer (the key was taken), not a failure of the write.
        endSpan(entry.span, documents.length, failure);
        if (failure) entry.reject(failure);
        else entry.resolve(outcomes);
      }
    }
  }
}

/** Ends a caller's insert span with the size of the command that carried it; a failed write marks it failed. */
function endSpan(span: Span | undefined, commandDocuments: number, failure: unknown): void {
  if (!span) return;
  span.setAttribute('db.operation.batch.size', commandDocuments);
  if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: (failure as Error).message });
  span.end();
}
