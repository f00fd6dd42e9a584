import { AppError } from '@mtx/shared/errors';
import type { UnaryClient } from '@mtx/shared/grpc';
import type { AccountBillingStatus } from './model';

/** The wallet as billing uses it: every charge is an idempotent debit named by a deterministic entry id. */
export interface WalletPort {
  /** Takes the amount once per entry id; throws AppError `insufficient_balance` when it cannot (nothing taken). */
  debit(request: { customer_id: string; entry_id: string; amount_eur_cents: number; reason: 'seat' | 'server'; reference: string }): Promise<{ replay: boolean; balance_eur_cents: number }>;
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
    async balance(customerId) {
      const wallet = await client.call<{ balance_eur_cents: number }>('GetWallet', { customer_id: customerId }, { deadlineMs });
      return Number(wallet.balance_eur_cents);
    },
    async recentEntryIds(customerId, limit) {
      const response = await client.call<{ entries: Array<{ entry_id: string }> }>('ListEntries', { customer_id: customerId, limit }, { deadlineMs });
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
