import type { AccountBillingStatus } from './model';

export { debitManyEntriesMax } from '@mtx/shared/service-contract';

export interface DebitEntry {
  entry_id: string;
  amount_eur_cents: number;
  reason: 'seat' | 'server';
  reference: string;
}

export interface DebitManyEntryResult {
  entry_id: string;
  outcome: 'applied' | 'replay' | 'insufficient_balance' | 'conflict';
  balance_eur_cents: number;
}

/** The wallet as billing uses it: every charge is an idempotent debit named by a deterministic entry id. */
export interface WalletPort {
  /** Takes the amount once per entry id; throws AppError `insufficient_balance` when it cannot (nothing taken). */
  debit(request: {
    customer_id: string;
    entry_id: string;
    amount_eur_cents: number;
    reason: 'seat' | 'server';
    reference: string;
  }): Promise<{ replay: boolean; balance_eur_cents: number }>;
  /**
   * Several debits of one customer in one call, tried in order, each all or nothing (the wallet's DebitMany, at
   * most `debitManyEntriesMax`): one result per entry, in order. Throws only when the call as a whole failed
   * (nothing known about any entry).
   */
  debitMany(request: { customer_id: string; entries: DebitEntry[] }): Promise<DebitManyEntryResult[]>;
  balance(customerId: string): Promise<number>;
  /**
   * Whether this entry is applied in the customer's wallet: an exact lookup (the wallet's FindEntries), so a
   * purchase is recognised however many entries the wallet took after it.
   */
  entryApplied(customerId: string, entryId: string): Promise<boolean>;
}

export interface ExecutionPort {
  setAccountBillingStatus(customerId: string, accountId: string, status: AccountBillingStatus): Promise<void>;
}
