import { AppError } from '../service/errors';
import { GroupCommit } from './group-commit';
import type { WriteGate } from './write-gate';
import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { refusedStatements } from './bulk-write';

/**
 * How one run fared: `landed` documents from its start are in the store, and none after them was written.
 * `landed` is null when the failure leaves that unknown (a lost connection, a write concern error): any
 * prefix may be in. `duplicate` says that a unique index stopped the run at `documents[landed]`.
 */
export interface RunOutcome {
  landed: number | null;
  error?: unknown;
  duplicate?: boolean;
}

export interface RunBatcherOptions {
  /** Documents in one insertMany (whole runs only; a run longer than this goes alone). */
  documentsMax?: number;
  /** insertMany commands in flight at once; while they are, new runs wait and go out together. */
  inFlightMax?: number;
  /** Documents waiting at most; beyond it a run is refused at once (nothing written; the caller answers 503). */
  queueMax?: number;
  /** Shared by every writer of one database, so their commands take the store's write lock one after another. */
  gate?: WriteGate;
}

/**
 * The first failed document of an ordered insertMany (every document before it is in, none after it was
 * tried), or null when the failure says nothing about which got in.
 */
export function firstWriteError(error: unknown, statements: number): { index: number; code: number | undefined } | null {
  const first = refusedStatements(error, statements)?.[0];
  return first ? { index: first.index, code: first.code } : null;
}

interface PendingRun<T> {
  documents: T[];
  resolve: (outcome: RunOutcome) => void;
}

/**
 * Group commit for runs of documents that must go in order (a wallet's contiguous ledger slots, from a DebitMany
 * or a CreditMany): the runs of concurrent callers, of different wallets, share one ORDERED insertMany, so the store
 * sees one command where each run alone would cost one. An ordered insert stops at its first failure with
 * everything before it in and nothing after it tried, so each run still learns exactly its own landed prefix:
 * runs before the failure are whole, the failing run stopped at the failed document, and the runs after it
 * were not tried at all, so they go out again in the next command, unharmed.
 *
 * FerretDB 1.x keeps that ordered behaviour within one 100-document batch, hence `documentsMax` 100.
 */
export class OrderedRunBatcher<T extends Document> extends GroupCommit<PendingRun<T>> {
  private readonly queueMax: number;

  constructor(
    private readonly collection: Collection<T>,
    options: RunBatcherOptions = {},
  ) {
    super({ weightMax: options.documentsMax ?? 100, inFlightMax: options.inFlightMax ?? 2, gate: options.gate });
    this.queueMax = options.queueMax ?? 10_000;
  }

  /** Resolves with the run's outcome (never rejects once accepted); rejects at once when the queue is full. */
  insert(documents: T[]): Promise<RunOutcome> {
    if (documents.length === 0) return Promise.resolve({ landed: 0 });
    if (this.waitingWeight + documents.length > this.queueMax) {
      return Promise.reject(
        new AppError(
          'unavailable',
          `${this.queueMax} documents for ${this.collection.collectionName} are already waiting for the store; retry shortly`,
        ),
      );
    }
    return new Promise<RunOutcome>((resolve) => this.enqueue({ documents, resolve }));
  }

  protected weightOf(run: PendingRun<T>): number {
    return run.documents.length;
  }

  protected async write(batch: Array<PendingRun<T>>): Promise<void> {
    const documents = batch.flatMap((run) => run.documents as OptionalUnlessRequiredId<T>[]);
    try {
      await this.collection.insertMany(documents, { ordered: true });
      for (const run of batch) run.resolve({ landed: run.documents.length });
    } catch (error) {
      const failure = firstWriteError(error, documents.length);
      if (!failure) {
        for (const run of batch) run.resolve({ landed: null, error });
        return;
      }
      const untried: Array<PendingRun<T>> = [];
      let offset = 0;
      for (const run of batch) {
        const end = offset + run.documents.length;
        if (end <= failure.index) run.resolve({ landed: run.documents.length });
        else if (offset <= failure.index) run.resolve({ landed: failure.index - offset, error, duplicate: failure.code === 11000 });
        else untried.push(run);
        offset = end;
      }
      // Not tried at all: first in line for the next command.
      this.requeueFront(untried);
    }
  }
}
