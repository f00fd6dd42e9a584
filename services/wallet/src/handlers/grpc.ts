import type { Db } from '@mtx/shared/mongo';
import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { auditLedger } from '../audit';
import type { Ledger } from '../ledger';

interface MovementRequest {
  customer_id: string;
  entry_id: string;
  amount_eur_cents: number;
  reason: string;
  reference: string;
}

/** gRPC adapter of mtx.wallet.v1.WalletService: transport only, every rule lives in the ledger. */
export function walletGrpcImplementation(ledger: Ledger, database: Db, logger: Logger): grpc.UntypedServiceImplementation {
  const movement = (request: MovementRequest) => ({
    customerId: request.customer_id,
    entryId: request.entry_id,
    amountEurCents: request.amount_eur_cents,
    reason: request.reason,
    reference: request.reference ?? '',
  });
  return unaryHandlers(
    {
      GetWallet: async (request: { customer_id: string }) => ledger.getWallet(request.customer_id),
      Credit: async (request: MovementRequest) => ledger.credit(movement(request)),
      Debit: async (request: MovementRequest) => ledger.debit(movement(request)),
      ListEntries: async (request: { customer_id: string; limit: number }) => {
        const entries = await ledger.listEntries(request.customer_id, request.limit);
        return {
          entries: entries.map((entry) => ({
            entry_id: entry.entry_id,
            sequence: entry.seq,
            kind: entry.kind,
            reason: entry.reason,
            reference: entry.reference,
            amount_eur_cents: entry.amount_eur_cents,
            balance_delta_eur_cents: entry.balance_delta_eur_cents,
            held_delta_eur_cents: entry.held_delta_eur_cents,
            balance_after_eur_cents: entry.balance_after_eur_cents,
            held_after_eur_cents: entry.held_after_eur_cents,
            created_at: entry.created_at.toISOString(),
          })),
        };
      },
      Audit: async () => auditLedger(database),
    },
    logger,
  );
}
