import type { Db } from '@mtx/shared/mongo';
import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { AppError } from '@mtx/shared/errors';
import { createCounter, instruments } from '@mtx/shared/instruments';
import { inSpan } from '@mtx/shared/telemetry';
import { auditLedger } from '../audit';
import type { CreditManyItem, DebitManyOutcome, Ledger } from '../app/ledger';

interface MovementRequest {
  customer_id: string;
  entry_id: string;
  amount_eur_cents: number;
  reason: string;
  reference: string;
}

const movementCount = createCounter(instruments.walletMovements);
const movementAmount = createCounter(instruments.walletMovementAmount);

/** One span and the movement metrics around a credit or a debit; ids and amounts only, never secrets. */
function observed<T extends { applied: boolean; replay: boolean }>(
  kind: 'credit' | 'debit',
  request: MovementRequest,
  work: () => Promise<T>,
): Promise<T> {
  const attributes = {
    'mtx.customer_id': request.customer_id,
    'mtx.entry_id': request.entry_id,
    'mtx.amount_eur_cents': request.amount_eur_cents,
    'mtx.reason': request.reason,
  };
  return inSpan('wallet', `wallet.${kind}`, attributes, async (span) => {
    try {
      const result = await work();
      const outcome = result.replay ? 'replay' : 'applied';
      span.setAttribute('mtx.outcome', outcome);
      movementCount.add(1, { 'mtx.kind': kind, 'mtx.reason': request.reason, 'mtx.outcome': outcome });
      if (outcome === 'applied') movementAmount.add(request.amount_eur_cents, { 'mtx.kind': kind, 'mtx.reason': request.reason });
      return result;
    } catch (error) {
      const outcome = error instanceof AppError && error.code === 'insufficient_balance' ? 'refused' : 'failed';
      movementCount.add(1, { 'mtx.kind': kind, 'mtx.reason': request.reason, 'mtx.outcome': outcome });
      throw error;
    }
  });
}

interface DebitManyRequest {
  customer_id: string;
  entries: Array<{ entry_id: string; amount_eur_cents: number; reason: string; reference: string }>;
}

/** One span around a DebitMany and the movement metrics of each of its entries. */
function observedMany(request: DebitManyRequest, work: () => Promise<DebitManyOutcome>): Promise<DebitManyOutcome> {
  const entries = Array.isArray(request.entries) ? request.entries : [];
  const attributes = { 'mtx.customer_id': request.customer_id, 'mtx.entries': entries.length };
  return inSpan('wallet', 'wallet.debit_many', attributes, async (span) => {
    try {
      const result = await work();
      const outcomes: Record<string, number> = {};
      result.items.forEach((item, index) => {
        const reason = entries[index]?.reason ?? '';
        const outcome = item.outcome === 'insufficient_balance' ? 'refused' : item.outcome === 'conflict' ? 'failed' : item.outcome;
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        movementCount.add(1, { 'mtx.kind': 'debit', 'mtx.reason': reason, 'mtx.outcome': outcome });
        if (outcome === 'applied')
          movementAmount.add(-item.balance_delta_eur_cents - item.held_delta_eur_cents, { 'mtx.kind': 'debit', 'mtx.reason': reason });
      });
      for (const [outcome, count] of Object.entries(outcomes)) span.setAttribute(`mtx.outcome.${outcome}`, count);
      return result;
    } catch (error) {
      movementCount.add(entries.length, { 'mtx.kind': 'debit', 'mtx.reason': entries[0]?.reason ?? '', 'mtx.outcome': 'failed' });
      throw error;
    }
  });
}

/** One span around a CreditMany and the movement metrics of each of its credits. */
function observedCredits(request: { credits?: MovementRequest[] }, work: () => Promise<CreditManyItem[]>): Promise<CreditManyItem[]> {
  const credits = Array.isArray(request.credits) ? request.credits : [];
  return inSpan('wallet', 'wallet.credit_many', { 'mtx.credits': credits.length }, async (span) => {
    try {
      const items = await work();
      const outcomes: Record<string, number> = {};
      items.forEach((item, index) => {
        const reason = credits[index]?.reason ?? '';
        outcomes[item.outcome] = (outcomes[item.outcome] ?? 0) + 1;
        movementCount.add(1, { 'mtx.kind': 'credit', 'mtx.reason': reason, 'mtx.outcome': item.outcome });
        if (item.outcome === 'applied')
          movementAmount.add(item.balance_delta_eur_cents + item.held_delta_eur_cents, { 'mtx.kind': 'credit', 'mtx.reason': reason });
      });
      for (const [outcome, count] of Object.entries(outcomes)) span.setAttribute(`mtx.outcome.${outcome}`, count);
      return items;
    } catch (error) {
      movementCount.add(credits.length, { 'mtx.kind': 'credit', 'mtx.reason': credits[0]?.reason ?? '', 'mtx.outcome': 'failed' });
      throw error;
    }
  });
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
      GetWallet: async (request: { customer_id: string; consistent?: boolean }) =>
        ledger.getWallet(request.customer_id, { consistent: request.consistent === true }),
      Credit: async (request: MovementRequest) => observed('credit', request, () => ledger.credit(movement(request))),
      Debit: async (request: MovementRequest) => observed('debit', request, () => ledger.debit(movement(request))),
      CreditMany: async (request: { credits?: MovementRequest[] }) => ({
        items: await observedCredits(request, () =>
          ledger.creditMany((Array.isArray(request.credits) ? request.credits : []).map(movement)),
        ),
      }),
      DebitMany: async (request: DebitManyRequest) =>
        observedMany(request, () =>
          ledger.debitMany(
            request.customer_id,
            (Array.isArray(request.entries) ? request.entries : []).map((entry) => ({
              entryId: entry.entry_id,
              amountEurCents: entry.amount_eur_cents,
              reason: entry.reason,
              reference: entry.reference ?? '',
            })),
          ),
        ),
      FindEntries: async (request: { entries?: Array<{ customer_id: string; entry_id: string }> }) => ({
        items: await ledger.findEntries(
          (Array.isArray(request.entries) ? request.entries : []).map((entry) => ({
            customerId: entry.customer_id,
            entryId: entry.entry_id,
          })),
        ),
      }),
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
