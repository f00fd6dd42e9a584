import type { Collection, Db } from 'mongodb';
import type { EncryptedSecret } from '../domain/secrets';
import type { StoredAccountSettings } from '../domain/account-settings';
import { PackedDocuments, type StoredDocument } from './packed-documents';
import type { CloseAccountResult, CloseSummary, OrderLegResult, PlaceSummary } from '../domain/results';
import type { BillingStatus, Platform, StoredLeg } from '../domain/model';

/**
 * Execution's collections. Every hot read is a `findOne({_id})` and every exclusive decision an insert
 * (FerretDB scans on anything else and does not isolate updates); collections that are scanned (unsettled
 * legs, open batches) stay small because their documents are deleted once done.
 */

export type { BillingStatus, Platform, StoredLeg } from '../domain/model';

export interface AccountDocument {
  _id: string;
  customer_id: string;
  platform: Platform;
  server: string;
  login: string;
  password: EncryptedSecret;
  /** SHA-256 (hex) of the token its terminal's EA presents: names the account's terminal registry entry. */
  terminal_token_sha256: string;
  label: string;
  symbol_suffix: string;
  margin_mode: string;
  billing_status: BillingStatus;
  bonus_seat: boolean;
  slot: number;
  created_at: Date;
  /** Pre-trade settings (symbol map, limits); absent until first changed. */
  settings?: StoredAccountSettings;
}

/** `_id: <customer>:<platform>:<server>:<login>`: one connection of a login per customer. */
export interface AccountKeyDocument {
  _id: string;
  account_id: string;
}

/** `_id: <customer>:<n>`: the customer's n-th account, so listing is a walk over `_id`s, never a scan. */
export interface AccountSlotDocument {
  _id: string;
  account_id: string;
}

export interface StoredCloseAccount {
  account_id: string;
  platform: Platform;
  client_id_base: string;
}

/**
 * A batch and, once its fan-out is over, its outcomes: one document, inserted once and never updated. Before the
 * fan-out the batch is written ahead as its document in flight (OpenBatchDocument). Batches stored by the versions
 * that wrote this document ahead hold no `results`: their outcomes are in `outcomes`.
 */
export interface BatchDocument {
  _id: string;
  customer_id: string;
  kind: 'orders' | 'close';
  created_at: Date;
  deadline_at: Date;
  legs?: StoredLeg[];
  accounts?: StoredCloseAccount[];
  /** Every leg's (or close account's) outcome as the batch answered it, in leg order. */
  results?: Array<StoredResult>;
  source?: OutcomeDocument['source'];
  written_at?: Date;
}

/**
 * A batch in flight: its write-ahead, the one document inserted before anything is sent, holding the whole batch
 * (so the answer waits for one insert, not a batch and a marker). The batch's own document is written with its
 * outcomes, and this one deleted once they are stored. Recovery scans this collection, which stays small. A
 * marker a version that wrote the batch apart left has only `_id` and the dates: its batch is in `batches`.
 */
export interface OpenBatchDocument {
  _id: string;
  created_at: Date;
  deadline_at: Date;
  customer_id?: string;
  kind?: BatchDocument['kind'];
  legs?: StoredLeg[];
  accounts?: StoredCloseAccount[];
}

/** The batch an open marker holds, when it holds one (markers of the version before hold none). */
export function batchOfMarker(marker: OpenBatchDocument): BatchDocument | undefined {
  if (marker.customer_id === undefined || marker.kind === undefined) return undefined;
  const batch: BatchDocument = {
    _id: marker._id,
    customer_id: marker.customer_id,
    kind: marker.kind,
    created_at: marker.created_at,
    deadline_at: marker.deadline_at,
  };
  if (marker.legs) batch.legs = marker.legs;
  if (marker.accounts) batch.accounts = marker.accounts;
  return batch;
}

/** A leg's (or close account's) outcome as the batch answered it: an OrderLegResult or a CloseAccountResult. */
export type StoredResult = OrderLegResult | CloseAccountResult;

/**
 * `_id: <batch>`: every leg's (or close account's) outcome as the batch returned it, in leg order, one document
 * per batch: how batches were stored before their outcomes went into the batch's own document, and where recovery
 * and a retried batch id store the outcomes of such a batch.
 */
export interface OutcomeDocument {
  _id: string;
  results: Array<StoredResult>;
  source: 'reply' | 'recovery';
  written_at: Date;
}

/** `_id: <batch>:<index>`: one leg's outcome, as batches stored before outcomes were one document per batch. */
export interface LegacyOutcomeDocument {
  _id: string;
  batch_id: string;
  index: number;
  result: StoredResult;
}

/** `_id: <batch>:<index>`: the final outcome of a leg that was unknown; the first insert wins. */
export interface SettlementDocument {
  _id: string;
  batch_id: string;
  index: number;
  result: StoredResult;
  source: 'late_reply' | 'reconciliation';
  settled_at: Date;
}

/** `_id: <batch>:<index>`: a leg (or close account) still to reconcile. */
export interface UnsettledDocument {
  _id: string;
  batch_id: string;
  index: number;
  kind: 'orders' | 'close';
  customer_id: string;
  account_id: string;
  platform: Platform;
  /** Client ids to look up; for a close account that never answered, empty and `client_id_prefix` set. */
  client_ids: string[];
  client_id_prefix: string;
  deadline_at: Date;
  created_at: Date;
}

/**
 * `_id: <customer>:<scope>:<n>`: the customer's n-th recorded batch in scope `all`, `orders` or `close`, so the
 * newest-first listing is a walk down `_id`s (no index but `_id` is needed, which FerretDB and MongoDB both serve).
 * Written once, when the batch's outcomes are first stored; `summary` is theirs, and a batch not `settled` then is
 * read afresh when listed.
 */
export interface BatchListingDocument {
  _id: string;
  customer_id: string;
  batch_id: string;
  kind: 'orders' | 'close';
  created_at: Date;
  recorded_at: Date;
  settled: boolean;
  orders_summary?: PlaceSummary;
  close_summary?: CloseSummary;
  /** Written for a batch whose outcomes had been stored before (listed already): passed over. */
  retracted?: boolean;
}

export interface ExecutionStore {
  database: Db;
  accounts: Collection<AccountDocument>;
  accountKeys: Collection<AccountKeyDocument>;
  accountSlots: Collection<AccountSlotDocument>;
  /** Legs and close accounts packed (see PackedDocuments). */
  batches: PackedDocuments<BatchDocument>;
  /**
   * Batches in flight, each whole (legs and accounts packed): the write-ahead. In a database of its own
   * (`<execution database>_open`): FerretDB on SQLite serialises every write to one database behind one lock, and
   * the batches' other writes (outcomes, settlements) go to the execution database. On MongoDB a database is only
   * a namespace. A collection apart from the markers of the version before, which held no batch: that version's
   * recovery would take a marker whose batch it cannot find in `batches` for a batch that never started.
   */
  openBatches: PackedDocuments<OpenBatchDocument>;
  /**
   * Where open markers without their batch were kept before (beside the batches, then in the `_open` database):
   * read by recovery, which moves what it finds.
   */
  formerOpenBatches: Collection<OpenBatchDocument>;
  formerOpenMarkers: Collection<OpenBatchDocument>;
  /** Results packed (see PackedDocuments). */
  outcomes: PackedDocuments<OutcomeDocument>;
  settlements: Collection<SettlementDocument>;
  unsettled: Collection<UnsettledDocument>;
  /**
   * In a database of its own (`<execution database>_listing`), for the reason the open markers have theirs: a
   * batch's outcomes and its listing entries are written at once, and in one FerretDB database the two inserts
   * queue behind its one lock.
   */
  batchListing: Collection<BatchListingDocument>;
  /** Where listing entries were kept before: moved by BatchListing.moveFormerEntries. */
  formerBatchListing: Collection<BatchListingDocument>;
}

/** The database of the open-batch markers, beside the execution database named `executionDatabaseName`. */
export function openMarkersDatabaseName(executionDatabaseName: string): string {
  return `${executionDatabaseName}_open`;
}

/** The database of the batch listing, beside the execution database named `executionDatabaseName`. */
export function listingDatabaseName(executionDatabaseName: string): string {
  return `${executionDatabaseName}_listing`;
}

/** Every database the execution service keeps (for tools and tests that drop them). */
export function executionDatabaseNames(executionDatabaseName: string): string[] {
  return [executionDatabaseName, openMarkersDatabaseName(executionDatabaseName), listingDatabaseName(executionDatabaseName)];
}

export function createExecutionStore(database: Db): ExecutionStore {
  return {
    database,
    accounts: database.collection<AccountDocument>('accounts'),
    accountKeys: database.collection<AccountKeyDocument>('account_keys'),
    accountSlots: database.collection<AccountSlotDocument>('account_slots'),
    batches: new PackedDocuments<BatchDocument>(database.collection<StoredDocument>('batches'), ['legs', 'accounts', 'results']),
    openBatches: new PackedDocuments<OpenBatchDocument>(
      database.client.db(openMarkersDatabaseName(database.databaseName)).collection<StoredDocument>('batches_in_flight'),
      ['legs', 'accounts'],
    ),
    formerOpenBatches: database.collection<OpenBatchDocument>('open_batches'),
    formerOpenMarkers: database.client.db(openMarkersDatabaseName(database.databaseName)).collection<OpenBatchDocument>('open_batches'),
    outcomes: new PackedDocuments<OutcomeDocument>(database.collection<StoredDocument>('outcomes'), ['results']),
    settlements: database.collection<SettlementDocument>('settlements'),
    unsettled: database.collection<UnsettledDocument>('unsettled'),
    batchListing: database.client.db(listingDatabaseName(database.databaseName)).collection<BatchListingDocument>('batch_listing'),
    formerBatchListing: database.collection<BatchListingDocument>('batch_listing'),
  };
}

/**
 * A batch's stored outcomes by leg index (undefined where none is stored), from any storage layout: in the
 * batch's own document (`batch`, when the caller read it), else one document per batch, else one per leg.
 */
export async function findOutcomes(
  store: Pick<ExecutionStore, 'outcomes'>,
  batchId: string,
  indexes: number[],
  batch?: Pick<BatchDocument, 'results'> | null,
): Promise<Array<StoredResult | undefined>> {
  if (batch?.results) return indexes.map((index) => batch.results![index]);
  const outcome = await store.outcomes.findOne({ _id: batchId });
  if (outcome) return indexes.map((index) => outcome.results[index]);
  // Batches stored before outcomes were one document per batch.
  const legacy = store.outcomes.collection as unknown as Collection<LegacyOutcomeDocument>;
  const perLeg = await legacy.find({ batch_id: batchId }).toArray();
  const byIndex = new Map(perLeg.map((document) => [document.index, document.result]));
  return indexes.map((index) => byIndex.get(index));
}
