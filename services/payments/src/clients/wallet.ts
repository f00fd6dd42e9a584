import type { WalletServiceDefinition } from '@mtx/shared/generated/proto/mtx/wallet/v1/WalletService';
import type { ServiceClient } from '@mtx/shared/grpc';

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

/** What payments asks of the wallet: credit a confirmed payment exactly once, and the figures the cap check needs. */
export interface WalletPort {
  credit(credit: WalletCredit): Promise<{ applied: boolean }>;
  figures(customerId: string): Promise<WalletFigures>;
}

/** The wallet port over the wallet's gRPC service, each call within `deadlineMs`. */
export function walletPortFromClient(client: ServiceClient<WalletServiceDefinition>, deadlineMs: number): WalletPort {
  return {
    async credit(credit) {
      const movement = await client.call(
        'Credit',
        {
          customer_id: credit.customerId,
          entry_id: credit.entryId,
          amount_eur_cents: credit.amountEurCents,
          reason: credit.reason,
          reference: credit.reference,
        },
        { deadlineMs },
      );
      return { applied: movement.applied };
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
