import { AppError } from '@mtx/shared/errors';
import type { UnaryClient } from '@mtx/shared/grpc';
import type { AccountBillingStatus } from './model';

/** The wallet's bound on entries per DebitMany. */
export const debitManyEntriesMax = 50;

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
  /** Entry ids of the customer's most recent ledger entries, newest first. */
  recentEntryIds(customerId: string, limit: number): Promise<string[]>;
}

export interface ExecutionPort {
  setAccountBillingStatus(customerId: string, accountId: string, status: AccountBillingStatus): Promise<void>;
}

export function walletPortFromClient(client: UnaryClient, deadlineMs: number): WalletPort {
  return {
    async debit(request) {
      const result = await client.call<{ replay: boolean; balance_eur_cents: number }>('Debit', request, { deadlineMs });
      return { replay: Boolean(result.replay), balance_eur_cents: Number(result.balance_eur_cents) };
    },
    async debitMany(request) {
      const result = await client.call<{
        items: Array<{ entry_id: string; outcome: DebitManyEntryResult['outcome']; balance_eur_cents: number }>;
      }>('DebitMany', request, { deadlineMs });
      const items = result.items ?? [];
      if (items.length !== request.entries.length || items.some((item, index) => item.entry_id !== request.entries[index]!.entry_id)) {
        throw new AppError('internal', 'the wallet answered DebitMany with items that do not match the request');
      }
      return items.map((item) => ({ entry_id: item.entry_id, outcome: item.outcome, balance_eur_cents: Number(item.balance_eur_cents) }));
    },
    async balance(customerId) {
      const wallet = await client.call<{ balance_eur_cents: number }>('GetWallet', { customer_id: customerId }, { deadlineMs });
      return Number(wallet.balance_eur_cents);
    },
    async recentEntryIds(customerId, limit) {
      const response = await client.call<{ entries: Array<{ entry_id: string }> }>(
        'ListEntries',
        { customer_id: customerId, limit },
        { deadlineMs },
      );
      return (response.entries ?? []).map((entry) => entry.entry_id);
    },
  };
}

export function executionPortFromClient(client: UnaryClient, deadlineMs: number): ExecutionPort {
  return {
    async setAccountBillingStatus(customerId, accountId, status) {
      try {
        await client.call('SetAccountBillingStatus', { customer_id: customerId, account_id: accountId, status }, { deadlineMs });
      } catch (error) {
        // The account was disconnected meanwhile: nothing left to tell.
        if (error instanceof AppError && (error.code === 'not_found' || error.code === 'unknown_account')) return;
        throw error;
      }
    },
  };
}
