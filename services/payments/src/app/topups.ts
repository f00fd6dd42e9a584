import { AppError } from '@mtx/shared/errors';
import { traceCarrier } from '@mtx/shared/telemetry';
import { isAwaitingCoin, quoteWindowMs } from '../domain/topup-state';
import type { TopupDocument } from '../store/payments-store';

import { forget, changed } from './topups-state';
import { providerNamed, assetsOf, assetRow, minimumTopupOf, quotedUnits } from './assets';
import { readEvents, loadTopup, view, customerProgress, snapshotOf } from './topup-reads';
import { transactionKey, confirmedPaymentOf, type ConfirmedPayment } from './crediting';
import { CreditingWorker } from './crediting-worker';
import { claimTopupId, customerHead, appendCustomerTopup } from './topup-ids';
import { expireDue, reconcileStep } from './sweeps';
import type { AssetRow, TopupView, PostbackOutcome } from './topup-types';
import { customerIdPattern, pendingScanMax, postbackBytesMax, assertCustomerId, assertTopupAmount } from './topup-rules';
import { createTopupsState } from './topups-state';
import type { TopupsOptions } from './topup-types';

export * from './topup-types';

export type Topups = ReturnType<typeof createTopups>;

/**
 * Top-ups: quotes, provider invoices and the crediting of confirmed payments. Every fact is an insert keyed so
 * that repeats collide (a top-up id, a provider transaction, an expiry); status and credited amount are derived
 * from those records, and the wallet credit is idempotent by `topup:<provider>:<provider_transaction_id>`, so
 * any number of deliveries, in any order, across replicas, credit each transaction exactly once. A postback is
 * acknowledged once it is in the inbox; the crediting worker does the rest (see CreditingWorker).
 */
export function createTopups(options: TopupsOptions) {
  const state = createTopupsState(options);
  const crediting = new CreditingWorker(state, {
    batchMax: 256,
    inFlightMax: 2,
    staleAfterMs: 30_000,
    retryAfterMs: 10_000,
    ...options.crediting,
  });
  /** A customer's top-ups whose quote window may be open, computed from the store (through the caches of immutable documents). */
  async function computePending(customerId: string, now: Date): Promise<TopupView[]> {
    const head = await customerHead(state, customerId);
    // Anything created before the last quote window began can no longer be awaiting coin.
    const oldestOpenMs = now.getTime() - quoteWindowMs - 60_000;
    const topupIds: number[] = [];
    for (let n = head; n >= 1 && head - n < pendingScanMax; n--) {
      const slotKey = `${customerId}:${n}`;
      let slot = state.customerSlotCache.get(slotKey);
      if (!slot) {
        const found = await state.store.customerTopups.findOne({ _id: slotKey });
        if (!found) continue;
        slot = { topupId: found.topup_id, createdAt: found.created_at };
        state.customerSlotCache.set(slotKey, slot);
      }
      if (slot.createdAt.getTime() < oldestOpenMs) break;
      topupIds.push(slot.topupId);
    }
    const views = await Promise.all(
      topupIds.map(async (topupId) => {
        // Paid stays paid and a quote that has ended awaits nothing: neither needs its records read.
        if (state.settledCache.get(String(topupId))) return null;
        const topup = await loadTopup(state, String(topupId));
        if (!topup || topup.expires_at.getTime() <= now.getTime()) return null;
        const current = view(state, topup, await customerProgress(state, topup, await readEvents(state, topupId)));
        if (current.status === 'paid') state.settledCache.set(String(topupId), true);
        return current;
      }),
    );
    return views.filter((candidate): candidate is TopupView => candidate !== null);
  }

  return {
    /** The inbox's crediting worker: started by the service, its age check run on an interval, its stats metrics. */
    crediting,

    /** Each customer's pending top-ups as last computed; suspended while other replicas' announcements may be missed. */
    pendingCache: state.pendingCache,

    async listAssets(amountEurCents: number): Promise<AssetRow[]> {
      assertTopupAmount(amountEurCents);
      const assets = await assetsOf(state, providerNamed(state, state.options.defaultProvider), amountEurCents);
      return assets.filter((asset) => amountEurCents >= minimumTopupOf(asset)).map((asset) => assetRow(asset, amountEurCents));
    },

    async createTopup(input: {
      customerId: string;
      amountEurCents: number;
      assetCode: string;
      blockchainCode: string;
      isEvm?: boolean | undefined;
    }): Promise<TopupView> {
      assertCustomerId(input.customerId);
      assertTopupAmount(input.amountEurCents);
      const provider = providerNamed(state, state.options.defaultProvider);
      const asset = (await assetsOf(state, provider, input.amountEurCents)).find(
        (candidate) => candidate.assetCode === input.assetCode && candidate.blockchainCode === input.blockchainCode,
      );
      if (!asset || input.amountEurCents < minimumTopupOf(asset)) {
        throw new AppError(
          'invalid_request',
          `${input.assetCode} on ${input.blockchainCode} is not offered for ${input.amountEurCents} cents; pick a row of GET /v1/wallet/assets for this amount`,
          {
            param: 'asset_code',
            ...(asset ? { details: { minimum_eur_cents: minimumTopupOf(asset) } } : {}),
          },
        );
      }
      if (input.isEvm === true && !asset.isEvm)
        throw new AppError('invalid_request', `${asset.blockchainName} is not an EVM chain; is_evm must be false or omitted`, {
          param: 'is_evm',
        });
      const current = await state.wallet.figures(input.customerId);
      if (current.balanceEurCents + current.heldEurCents + input.amountEurCents > current.balanceCapEurCents) {
        const room = Math.max(0, current.balanceCapEurCents - current.balanceEurCents - current.heldEurCents);
        throw new AppError(
          'balance_cap_exceeded',
          `this top-up would take the balance past the cap of ${current.balanceCapEurCents} cents; at most ${room} cents fit now`,
          {
            param: 'amount_eur_cents',
            details: {
              balance_cap_eur_cents: current.balanceCapEurCents,
              balance_eur_cents: current.balanceEurCents,
              held_eur_cents: current.heldEurCents,
              room_eur_cents: room,
            },
          },
        );
      }
      const units = quotedUnits(asset, input.amountEurCents);
      const createdAt = state.clock.now();
      const quoteEndsAt = new Date(createdAt.getTime() + quoteWindowMs);
      const topupId = await claimTopupId(state);
      const invoice = await provider.createInvoice({
        orderId: String(topupId),
        amountEurCents: input.amountEurCents,
        assetCode: asset.assetCode,
        blockchainCode: asset.blockchainCode,
        amountUnits: units.toString(),
        expiresAt: quoteEndsAt,
        isEvm: input.isEvm === true,
      });
      // Never later than the provider's own quote (NOWPayments' fixed rate holds about 20 minutes).
      const expiresAt = invoice.expiresAt.getTime() < quoteEndsAt.getTime() ? invoice.expiresAt : quoteEndsAt;
      const topup: TopupDocument = {
        _id: String(topupId),
        id: topupId,
        customer_id: input.customerId,
        provider: provider.name,
        invoice_id: invoice.invoiceId,
        amount_eur_cents: input.amountEurCents,
        asset_code: asset.assetCode,
        blockchain_code: asset.blockchainCode,
        decimals: asset.decimals,
        is_evm: input.isEvm === true,
        deposit_address: invoice.address,
        // The provider's amount is what the address expects; it equals ours unless the provider re-quotes.
        deposit_amount: invoice.amountUnits,
        ...(invoice.paymentUri ? { payment_uri: invoice.paymentUri } : {}),
        created_at: createdAt,
        expires_at: expiresAt,
      };
      await state.store.topups.insertOne(topup);
      state.topupCache.set(topup._id, topup);
      state.eventCache.set(topup._id, []);
      await state.store.providerInvoices.insertOne({ _id: `${provider.name}:${invoice.invoiceId}`, topup_id: topupId });
      await appendCustomerTopup(state, input.customerId, topupId, createdAt);
      changed(state, input.customerId);
      state.logger.info(
        {
          topup_id: topupId,
          customer_id: input.customerId,
          amount_eur_cents: input.amountEurCents,
          asset_code: asset.assetCode,
          blockchain_code: asset.blockchainCode,
        },
        'top-up created',
      );
      return view(state, topup, { creditedEurCents: 0, expired: false });
    },

    async getTopup(customerId: string, topupId: number): Promise<TopupView> {
      assertCustomerId(customerId);
      const topup = Number.isSafeInteger(topupId) && topupId > 0 ? await loadTopup(state, String(topupId)) : null;
      // Another customer's top-up is indistinguishable from a missing one.
      if (!topup || topup.customer_id !== customerId) throw new AppError('not_found', `no top-up ${topupId}`, { param: 'id' });
      return view(state, topup, await customerProgress(state, topup, await readEvents(state, topup.id)));
    },

    async listPendingTopups(customerId: string): Promise<TopupView[]> {
      assertCustomerId(customerId);
      const now = state.clock.now();
      const open = (views: TopupView[]) =>
        views.filter(
          (candidate) =>
            new Date(candidate.expires_at).getTime() > now.getTime() &&
            isAwaitingCoin(candidate.status, new Date(candidate.expires_at), now),
        );
      return open(await state.pendingCache.read(customerId, () => computePending(customerId, now)));
    },

    /** Another replica changed this customer's top-ups (its broadcast): the next read computes them afresh. */
    observeChanged(customerId: string): void {
      if (typeof customerId === 'string' && customerIdPattern.test(customerId)) forget(state, customerId);
    },

    async handlePostback(providerName: string, body: Buffer, headers: Record<string, string>): Promise<PostbackOutcome> {
      const provider = providerNamed(state, providerName);
      if (body.length > postbackBytesMax) throw new AppError('invalid_request', `postback body exceeds ${postbackBytesMax} bytes`);
      if (!provider.verifyPostback(body, headers)) throw new AppError('unauthenticated', 'postback signature missing or invalid');
      const postback = provider.parsePostback(body);
      if (postback.sentAt && Math.abs(state.clock.now().getTime() - postback.sentAt.getTime()) > state.options.postbackToleranceMs) {
        throw new AppError('unauthenticated', 'postback timestamp is outside the accepted window (a replay, or a clock far off)');
      }
      const transaction = postback.transaction;
      if (!transaction) return { outcome: 'ignored', credited_eur_cents: 0 };
      if (transaction.status === 'failed') {
        // Never debited automatically: coin already credited stays credited, and an operator decides.
        state.logger.warn(
          { provider: provider.name, invoice_id: postback.invoiceId, provider_status: transaction.providerStatus ?? 'failed' },
          'the provider reports a payment failed, expired or refunded; nothing more is credited for it',
        );
        return { outcome: 'ignored', credited_eur_cents: 0, provider_failure: transaction.providerStatus ?? 'failed' };
      }
      if (transaction.status !== 'confirmed') return { outcome: 'ignored', credited_eur_cents: 0 };
      // The order id we gave the provider is our top-up id; it counts only if the invoice matches too.
      let topup = postback.orderId && /^[1-9][0-9]{0,15}$/.test(postback.orderId) ? await loadTopup(state, postback.orderId) : null;
      if (!topup || topup.provider !== provider.name || topup.invoice_id !== postback.invoiceId) {
        const pointer = await state.store.providerInvoices.findOne({ _id: `${provider.name}:${postback.invoiceId}` });
        topup = pointer ? await loadTopup(state, String(pointer.topup_id)) : null;
      }
      if (!topup) throw new AppError('not_found', `no top-up for invoice ${postback.invoiceId}`);
      if (postback.assetCode !== topup.asset_code || postback.blockchainCode !== topup.blockchain_code) {
        // The provider would have to misroute coin for this; nothing sensible can be credited automatically.
        state.logger.error(
          { topup_id: topup.id, asset_code: postback.assetCode, blockchain_code: postback.blockchainCode },
          'postback asset differs from the top-up; not credited, needs an operator',
        );
        return { outcome: 'ignored', topup_id: topup.id, credited_eur_cents: 0, customer_id: topup.customer_id };
      }
      const known = { topup_id: topup.id, credited_eur_cents: 0, customer_id: topup.customer_id };
      let payment: ConfirmedPayment;
      try {
        payment = confirmedPaymentOf(transaction, topup);
      } catch (error) {
        throw new AppError('invalid_request', `postback amount is not an amount of ${topup.asset_code}`, { cause: error });
      }
      // A running total of nothing yet (NOWPayments reports 0 before coin arrives) moves no money.
      if (BigInt(payment.amountUnits) === 0n) return { outcome: 'ignored', ...known };
      // Known here to be credited: nothing to write.
      if (state.appliedCache.get(transactionKey(provider.name, payment.transactionId))) return { outcome: 'duplicate', ...known };
      // One append, no read: the inbox itself tells a first delivery from a repeat. The crediting worker takes
      // the record from the inbox, on whichever replica asks first.
      const outcome = await state.options.inbox.record({
        id: `${provider.name}:${payment.transactionId}`,
        provider: provider.name,
        topup_id: topup.id,
        customer_id: topup.customer_id,
        transaction_id: payment.transactionId,
        amount_units: payment.amountUnits,
        received_at: payment.receivedAt.toISOString(),
        ...(payment.afterExpiration !== undefined ? { after_expiration: payment.afterExpiration } : {}),
        ...(payment.cumulativeOf !== undefined ? { cumulative_of: payment.cumulativeOf } : {}),
        recorded_at: state.clock.now().toISOString(),
        trace_context: traceCarrier(),
        topup: snapshotOf(topup),
      });
      return { outcome, ...known };
    },

    /** One bounded pass of the expiry sweep (see sweeps.ts). */
    expireDue: (batchSize: number) => expireDue(state, batchSize),

    /** One bounded pass of reconciliation (see sweeps.ts). */
    reconcileStep: (batchSize: number) => reconcileStep(state, batchSize),
  };
}
