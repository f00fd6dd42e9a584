import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { MovementKind } from '../domain/movement';
import type { LedgerStore } from '../store/ledger-store';

export interface MovementInput {
  customerId: string;
  entryId: string;
  kind: MovementKind;
  amountEurCents: number;
  reason: string;
  reference: string;
}

export interface MovementOutcome {
  entry_id: string;
  applied: boolean;
  replay: boolean;
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
}

/** One entry of a DebitMany: a debit of the request's wallet. */
export interface DebitInput {
  entryId: string;
  amountEurCents: number;
  reason: string;
  reference: string;
}

/** How one DebitMany entry ended; see DebitMany in proto/wallet/v1/wallet.proto. */
export type DebitOutcome = 'applied' | 'replay' | 'insufficient_balance' | 'conflict';

export interface DebitManyItem {
  entry_id: string;
  outcome: DebitOutcome;
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
}

export interface DebitManyOutcome {
  customer_id: string;
  /** One per request entry, in request order. */
  items: DebitManyItem[];
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
}

/** One credit of a CreditMany: any wallet. */
export interface CreditInput {
  customerId: string;
  entryId: string;
  amountEurCents: number;
  reason: string;
  reference: string;
}

/** How one CreditMany credit ended; see CreditMany in proto/wallet/v1/wallet.proto. */
export interface CreditManyItem {
  entry_id: string;
  outcome: 'applied' | 'replay' | 'failed';
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
  error_code: string;
  error_message: string;
}

/** Credits in one CreditMany: a crediting worker's batch, one ledger insert per wallet's run (group-committed). */
export const creditManyEntriesMax = 500;

/** One entry a FindEntries asks about: applied in this wallet? */
export interface EntryKey {
  customerId: string;
  entryId: string;
}

/** See FindEntries in proto/wallet/v1/wallet.proto. */
export interface FoundEntry {
  entry_id: string;
  applied: boolean;
  sequence: number;
}

/** Entries in one FindEntries: as many as a CreditMany holds, so a crediting batch is asked about in one call. */
export { findEntriesMax } from '@mtx/shared/service-contract';

/**
 * Entries in one DebitMany. Its ledger entries go out as one ordered insert, which FerretDB stops at the first
 * duplicate only within one 100-document batch; 50 keeps a run well inside one.
 */
export { debitManyEntriesMax } from '@mtx/shared/service-contract';

export interface WalletView {
  customer_id: string;
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_cap_eur_cents: number;
}

export interface CreditedEvent {
  customer_id: string;
  entry_id: string;
  balance_eur_cents: number;
}

/** Where applied credits are announced (NATS `events.wallet.credited`); delivery is at least once. */
export type CreditPublisher = (event: CreditedEvent) => void;

/** A wallet's head after a movement, broadcast to every replica so their read caches follow at once. */
export interface MovedEvent {
  customer_id: string;
  sequence: number;
  balance_eur_cents: number;
  held_eur_cents: number;
}

export type MovedPublisher = (event: MovedEvent) => void;

export interface LedgerOptions {
  store: LedgerStore;
  clock: Clock;
  logger: Logger;
  publishCredited?: CreditPublisher;
  publishMoved?: MovedPublisher;
  /**
   * How long a head this replica knows (from its own movements, a read, or another replica's broadcast) answers
   * reads without a store lookup. 0 makes every read look one slot past its hint (linearisable).
   */
  readFreshMs?: number;
  queueMax?: number;
  headCacheMax?: number;
  recoveryBatch?: number;
  /** Entry-id prefix that kills the process after the ledger insert (fault injection); empty is off. */
  crashAfterLedgerWritePrefix?: string;
  exit?: (code: number) => never;
}
