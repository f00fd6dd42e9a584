import { AppError } from '@mtx/shared/errors';
import type { BatchView, CloseOrdersResult, PlaceOrdersResult } from '../domain/results';
import type { CloseOrdersInput, PlaceOrdersInput } from '../domain/validation';
import type { BatchServiceOptions } from './batch-context';
import { BatchJournal } from './batch-journal';
import type { BatchListItem, ListBatchesQuery } from './batch-listing';
import { Closing } from './closing';
import { Modifying } from './modifying';
import type { ModifyOrdersInput } from '../domain/modify-validation';
import type { ModifyOrdersResult } from '../domain/modify-results';
import { Placing } from './placing';
import { Reconciliation } from './reconciliation';

export type { BatchServiceConfig, BatchServiceOptions } from './batch-context';

/**
 * Batches: validate in full, fan out one NATS request per account, aggregate until the deadline, store every
 * outcome, take late replies, and reconcile what stayed unknown by looking the client ids up at the broker.
 * Each job is a module of its own (placing, closing, the batch journal, reconciliation, results); this is the
 * service's face, and the bound on batches in flight.
 */
export class BatchService {
  private inFlight = 0;
  private readonly journal: BatchJournal;
  private readonly placing: Placing;
  private readonly closing: Closing;
  private readonly modifying: Modifying;
  private readonly reconciliation: Reconciliation;

  constructor(private readonly options: BatchServiceOptions) {
    this.journal = new BatchJournal(options);
    const resolveOwned = options.registry.resolveOwned.bind(options.registry);
    this.placing = new Placing(options, this.journal, resolveOwned);
    this.closing = new Closing(options, this.journal, resolveOwned);
    this.modifying = new Modifying(options, resolveOwned);
    this.reconciliation = new Reconciliation(options, this.journal);
  }

  /** Bounds the batches this replica works on at once; a refused batch has sent nothing and may be retried. */
  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.options.config.BATCHES_IN_FLIGHT_MAX) {
      throw new AppError('unavailable', `the execution service is handling ${this.inFlight} batches; nothing was sent, retry shortly`);
    }
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
    }
  }

  /** What must be done before serving: listing entries an earlier version kept elsewhere are moved. */
  async prepare(): Promise<void> {
    await this.journal.moveFormerListing();
  }

  placeOrders(customerId: string, input: PlaceOrdersInput & { batch_id?: string }): Promise<PlaceOrdersResult> {
    return this.bounded(() => this.placing.place(customerId, input));
  }

  closeOrders(
    customerId: string,
    input: CloseOrdersInput & { require_reachable?: boolean; batch_id?: string },
  ): Promise<CloseOrdersResult> {
    return this.bounded(() => this.closing.close(customerId, input));
  }

  modifyOrders(customerId: string, input: ModifyOrdersInput & { batch_id?: string }): Promise<ModifyOrdersResult> {
    return this.bounded(() => this.modifying.modify(customerId, input));
  }

  getBatch(customerId: string, batchId: string): Promise<BatchView> {
    return this.journal.view(customerId, batchId);
  }

  listBatches(customerId: string, query: ListBatchesQuery): Promise<{ data: BatchListItem[]; has_more: boolean }> {
    return this.journal.listBatches(customerId, query);
  }

  /** Waits for the outcomes still being stored behind answered batches (at shutdown). */
  drain(): Promise<void> {
    return this.journal.drain();
  }

  /** Runs one reconciliation pass; concurrent callers share the pass in progress, then run their own. */
  reconcile(batchId?: string): Promise<{ checked: number; settled: number; pending: number }> {
    return this.reconciliation.reconcile(batchId);
  }
}
