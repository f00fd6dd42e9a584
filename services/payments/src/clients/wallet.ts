import type { WalletServiceDefinition } from '@mtx/shared/generated/proto/mtx/wallet/v1/WalletService';
import type { ServiceClient } from '@mtx/shared/grpc';
import { AppError, errorHttpStatus, type ErrorCode } from '@mtx/shared/errors';

export interface WalletCredit {
  customerId: string;
  /** Deterministic (`topup:<provider>:<transaction>`), so a repeated credit is the wallet's replay. */
  entryId: string;
  amountEurCents: number;
  reason: string;
  reference: string;
}

export interface WalletFigures {
  balanceEurCents: number;
  heldEurCents: number;
  balanceCapEurCents: number;
}

/** How one credit of a batch ended: applied now, a replay (`applied` false), or an error to retry it on. */
export interface WalletCreditOutcome {
  applied: boolean;
  error?: AppError;
}

/** What payments asks of the wallet: credit confirmed payments exactly once, and the figures the cap check needs. */
export interface WalletPort {
  /** One outcome per credit, in order; the call itself fails only when the wallet could not be asked. */
  creditMany(credits: WalletCredit[]): Promise<WalletCreditOutcome[]>;
  figures(customerId: string): Promise<WalletFigures>;
  /** Whether each credit is applied in its wallet, in order (a read; false may mean "not yet", never "lost"). */
  creditsApplied(credits: Array<{ customerId: string; entryId: string }>): Promise<boolean[]>;
}

/** The wallet port over the wallet's gRPC service, each call within `deadlineMs`. */
export function walletPortFromClient(client: ServiceClient<WalletServiceDefinition>, deadlineMs: number): WalletPort {
  return {
    async creditMany(credits) {
      const answer = await client.call(
        'CreditMany',
        {
          credits: credits.map((credit) => ({
            customer_id: credit.customerId,
            entry_id: credit.entryId,
            amount_eur_cents: credit.amountEurCents,
            reason: credit.reason,
            reference: credit.reference,
          })),
        },
        { deadlineMs },
      );
      const items = answer.items ?? [];
      if (items.length !== credits.length)
        throw new AppError('unavailable', `CreditMany answered ${items.length} items for ${credits.length} credits`);
      return items.map((item) =>
        item.outcome === 'failed'
          ? {
              applied: false,
              error: new AppError(
                Object.hasOwn(errorHttpStatus, item.error_code) ? (item.error_code as ErrorCode) : 'unavailable',
                item.error_message || 'the credit failed',
              ),
            }
          : { applied: item.outcome === 'applied' },
      );
    },
    async creditsApplied(credits) {
      const answer = await client.call(
        'FindEntries',
        { entries: credits.map((credit) => ({ customer_id: credit.customerId, entry_id: credit.entryId })) },
        { deadlineMs },
      );
      const items = answer.items ?? [];
      if (items.length !== credits.length)
        throw new AppError('unavailable', `FindEntries answered ${items.length} items for ${credits.length} entries`);
      return items.map((item, index) => item.applied === true && item.entry_id === credits[index]!.entryId);
    },
    async figures(customerId) {
      const wallet = await client.call('GetWallet', { customer_id: customerId }, { deadlineMs });
      return {
        balanceEurCents: Number(wallet.balance_eur_cents),
        heldEurCents: Number(wallet.held_eur_cents),
        balanceCapEurCents: Number(wallet.balance_cap_eur_cents),
      };
    },
  };
}
