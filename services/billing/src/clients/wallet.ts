import { AppError } from '@mtx/shared/errors';
import type { WalletServiceDefinition } from '@mtx/shared/generated/proto/mtx/wallet/v1/WalletService';
import type { ServiceClient } from '@mtx/shared/grpc';
import type { DebitManyEntryResult, WalletPort } from '../domain/ports';

const debitOutcomes: ReadonlyArray<DebitManyEntryResult['outcome']> = ['applied', 'replay', 'insufficient_balance', 'conflict'];

/** The wallet names each entry's outcome as a string; one billing does not know is a broken contract. */
function debitOutcome(outcome: string): DebitManyEntryResult['outcome'] {
  const known = debitOutcomes.find((candidate) => candidate === outcome);
  if (!known) throw new AppError('internal', `the wallet answered DebitMany with an unknown outcome ${JSON.stringify(outcome)}`);
  return known;
}

/** The wallet port over the wallet's gRPC service, each call within `deadlineMs`. */
export function walletPortFromClient(client: ServiceClient<WalletServiceDefinition>, deadlineMs: number): WalletPort {
  return {
    async debit(request) {
      const result = await client.call('Debit', request, { deadlineMs });
      return { replay: Boolean(result.replay), balance_eur_cents: Number(result.balance_eur_cents) };
    },
    async debitMany(request) {
      const result = await client.call('DebitMany', request, { deadlineMs });
      const items = result.items ?? [];
      if (items.length !== request.entries.length || items.some((item, index) => item.entry_id !== request.entries[index]!.entry_id)) {
        throw new AppError('internal', 'the wallet answered DebitMany with items that do not match the request');
      }
      return items.map((item) => ({
        entry_id: item.entry_id,
        outcome: debitOutcome(item.outcome),
        balance_eur_cents: Number(item.balance_eur_cents),
      }));
    },
    async balance(customerId) {
      const wallet = await client.call('GetWallet', { customer_id: customerId }, { deadlineMs });
      return Number(wallet.balance_eur_cents);
    },
    async entryApplied(customerId, entryId) {
      const result = await client.call('FindEntries', { entries: [{ customer_id: customerId, entry_id: entryId }] }, { deadlineMs });
      const item = result.items?.[0];
      if (result.items?.length !== 1 || item?.entry_id !== entryId)
        throw new AppError('internal', 'the wallet answered FindEntries with items that do not match the request');
      return Boolean(item.applied);
    },
  };
}
