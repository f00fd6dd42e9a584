import { refusedOnlyDuplicates } from '@mtx/shared/bulk-write';
import {
  closeSummary,
  placeSummary,
  type CloseAccountResult,
  type CloseSummary,
  type OrderLegResult,
  type PlaceSummary,
} from '../domain/results';
import type { BatchDocument, StoredResult, UnsettledDocument } from '../store/execution-store';

/** Idempotent inserts: a document whose `_id` is already there was written before. */
export async function insertAll<T extends { _id: string }>(
  collection: { insertMany(documents: T[], options: { ordered: boolean }): Promise<unknown> },
  documents: T[],
): Promise<void> {
  if (documents.length === 0) return;
  try {
    await collection.insertMany(documents, { ordered: false });
  } catch (error) {
    if (!refusedOnlyDuplicates(error, documents.length)) throw error;
  }
}

/** The row reconciliation works from for a leg (or close account) whose outcome is unknown. */
export function unsettledRow(batch: BatchDocument, index: number): UnsettledDocument {
  const leg = batch.legs?.[index];
  const closeAccount = batch.accounts?.[index];
  return {
    _id: `${batch._id}:${index}`,
    batch_id: batch._id,
    index,
    kind: batch.kind,
    customer_id: batch.customer_id,
    account_id: leg?.account_id ?? closeAccount!.account_id,
    platform: leg?.platform ?? closeAccount!.platform,
    client_ids: leg ? [leg.client_id] : [],
    client_id_prefix: leg ? '' : `${closeAccount!.client_id_base}-`,
    deadline_at: batch.deadline_at,
    created_at: batch.created_at,
  };
}

/** What a batch's listing entry keeps of its outcomes. */
export interface ListingFigures {
  settled: boolean;
  orders_summary?: PlaceSummary;
  close_summary?: CloseSummary;
}

/** The listing figures of a batch's outcomes. */
export function listingFigures(kind: BatchDocument['kind'], results: StoredResult[]): ListingFigures {
  if (kind === 'orders') {
    const legs = results as OrderLegResult[];
    return { settled: legs.every((leg) => leg.status !== 'unknown'), orders_summary: placeSummary(legs) };
  }
  const accounts = results as CloseAccountResult[];
  return {
    settled: accounts.every((account) => account.status !== 'unknown' && account.results.every((ticket) => ticket.status !== 'unknown')),
    close_summary: closeSummary(accounts),
  };
}
