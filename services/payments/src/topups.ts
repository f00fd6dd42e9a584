import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { UnaryClient } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { InsertBatcher } from '@mtx/shared/insert-batcher';
import { WriteGate } from '@mtx/shared/write-gate';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import { formatUnits, unitsForEurCents } from './domain/money';
import { planPayment } from './domain/payment';
import {
  deriveTopupStatus,
  isAwaitingCoin,
  quoteWindowMs,
  topupAmountMaxEurCents,
  topupAmountMinEurCents,
  type TopupProgress,
  type TopupStatus,
} from './domain/topup-state';
import { BoundedCache } from '@mtx/shared/bounded-cache';
import { ChangeLog } from '@mtx/shared/change-log';
import type { PaymentProvider, ProviderAsset, ProviderTransaction } from './providers/provider';
import type { PaymentsStore, TopupDocument, TopupEventDocument } from './store/payments-store';

export interface AssetRow {
  asset_code: string;
  asset_name: string;
  blockchain_code: string;
  blockchain_name: string;
  is_evm: boolean;
  is_stable: boolean;
  amount: string;
  decimals: number;
  display_decimals: number;
}

export interface TopupView {
  id: number;
  customer_id: string;
  status: TopupStatus;
  amount_eur_cents: number;
  credited_eur_cents: number;
  deposit_address: string;
  deposit_amount: string;
  deposit_amount_decimal: string;
  asset_code: string;
  blockchain_code: string;
  expires_at: string;
  created_at: string;
  is_evm: boolean;
  payment_uri?: string;
  decimals: number;
}

export interface PostbackOutcome {
  outcome: 'credited' | 'already_credited' | 'ignored';
  topup_id?: number;
  credited_eur_cents: number;
  /** Whose top-up it was, so the caller can refresh that customer's views before acknowledging. */
  customer_id?: string;
}

export interface TopupsOptions {
  store: PaymentsStore;
  clock: Clock;
  logger: Logger;
  providers: ReadonlyMap<string, PaymentProvider>;
  /** Provider new top-ups are opened with. */
  defaultProvider: string;
  wallet: UnaryClient;
  walletDeadlineMs: number;
  /** A postback signed longer ago (or further ahead) than this is refused as a replay. */
  postbackToleranceMs: number;
  /** How long a provider's asset list and rates are reused. */
  assetsCacheMs: number;
  reconcileLookbackMs: number;
  /**
   * How long a customer's computed pending top-ups answer GET /v1/wallet without store reads when another
   * replica changed them and its broadcast was lost; changes made by this replica are seen at once. 0: always read.
   */
  pendingFreshMs?: number;
  /** Tells the other replicas a customer's top-ups changed (NATS broadcast); optional. */
  publishChanged?: (customerId: string) => void;
  /** Fault injection: a newly recorded payment whose wallet entry id starts with this kills the process before the credit. */
  crashBeforeCreditPrefix?: string;
  exit?: (code: number) => never;
}

interface Progress {
  seq: number;
  creditedEurCents: number;
  quotedUnits: bigint;
  quotedEurCents: number;
  expired: boolean;
}

const customerIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const eventsPerTopupMax = 1_000;
const slotAttemptsMax = 64;
const pendingScanMax = 100;
const postbackBytesMax = 64 * 1024;
const customerHeadsCachedMax = 100_000;
const owedCancellationsMax = 10_000;
const cachedDocumentsMax = 50_000;

function assertCustomerId(customerId: unknown): asserts customerId is string {
  if (typeof customerId !== 'string' || !customerIdPattern.test(customerId)) {
    throw new AppError('invalid_request', 'customer_id must be 1 to 64 letters, digits, `_` or `-`', { param: 'customer_id' });
  }
}

function assertTopupAmount(amountEurCents: unknown): asserts amountEurCents is number {
  if (
    typeof amountEurCents !== 'number' ||
    !Number.isSafeInteger(amountEurCents) ||
    amountEurCents < topupAmountMinEurCents ||
    amountEurCents > topupAmountMaxEurCents
  ) {
    throw new AppError(
      'amount_out_of_range',
      `amount_eur_cents must be an integer from ${topupAmountMinEurCents} to ${topupAmountMaxEurCents}`,
      {
        param: 'amount_eur_cents',
        details: { minimum: topupAmountMinEurCents, maximum: topupAmountMaxEurCents },
      },
    );
  }
}

function progressOf(events: TopupEventDocument[]): Progress {
  const head = events[events.length - 1];
  if (!head) return { seq: 0, creditedEurCents: 0, quotedUnits: 0n, quotedEurCents: 0, expired: false };
  return {
    seq: head.seq,
    creditedEurCents: head.credited_after_eur_cents,
    quotedUnits: BigInt(head.quoted_units_after),
    quotedEurCents: head.quoted_eur_cents_after,
    expired: head.expired_after,
  };
}

export type Topups = ReturnType<typeof createTopups>;

/**
 * Top-ups: quotes, provider invoices and the crediting of confirmed payments. Every fact is an insert keyed so
 * that repeats collide (a top-up id, a provider transaction, an expiry); status and credited amount are derived
 * from those records, and the wallet credit is idempotent by `topup:<provider>:<provider_transaction_id>`, so
 * any number of deliveries, in any order, across replicas, credit each transaction exactly once.
 */
export function createTopups(options: TopupsOptions) {
  const { store, clock, logger, providers, wallet } = options;
  const assetCache = new Map<string, { loadedAtMs: number; assets: ProviderAsset[] }>();
  const customerHeads = new Map<string, number>();
  // Caches of immutable documents (insert-only collections, so never stale; freshness comes from probing the next `_id`): top-ups, their records, done credits, customer slots.
  const topupCache = new BoundedCache<TopupDocument>(cachedDocumentsMax);
  const eventCache = new BoundedCache<TopupEventDocument[]>(cachedDocumentsMax);
  const appliedCache = new BoundedCache<true>(cachedDocumentsMax);
  const customerSlotCache = new BoundedCache<{ topupId: number; createdAt: Date }>(cachedDocumentsMax);
  const settledCache = new BoundedCache<true>(cachedDocumentsMax);
  // Concurrent postbacks share store round trips; each record keeps its own insert outcome.
  const writeGate = new WriteGate(1);
  const eventInserts = new InsertBatcher(store.events, { gate: writeGate });
  const appliedInserts = new InsertBatcher(store.appliedCredits, { gate: writeGate });
  // Per customer: the open top-ups as last computed, and when each customer last changed (by a counter), so a
  // computation that raced a change is not remembered as fresh.
  const pendingFreshMs = options.pendingFreshMs ?? 0;
  const pendingCache = new BoundedCache<{ views: TopupView[]; computedAtMs: number }>(customerHeadsCachedMax);
  const changes = new ChangeLog(customerHeadsCachedMax);
  let changeCounter = 0;
  const forget = (customerId: string) => {
    changes.note(customerId, ++changeCounter);
    pendingCache.delete(customerId);
  };
  const changed = (customerId: string) => {
    forget(customerId);
    options.publishChanged?.(customerId);
  };
  let lastTopupId = 0;
  // Expired top-ups whose cancellation the provider refused; retried on every expiry pass.
  const owedCancellations = new Set<string>();
  // Where the expiry sweep has got to (by expiry time, then id); starts a look-back behind now after a restart.
  let expiryCursor: { expiresAt: Date; id: string } | undefined;
  let reconcileCursor = '';

  function providerNamed(name: string): PaymentProvider {
    const provider = providers.get(name);
    if (!provider) throw new AppError('not_found', `no payment provider ${name}`, { param: 'provider' });
    return provider;
  }

  async function assetsOf(provider: PaymentProvider): Promise<ProviderAsset[]> {
    const nowMs = clock.now().getTime();
    const cached = assetCache.get(provider.name);
    if (cached && Math.abs(nowMs - cached.loadedAtMs) < options.assetsCacheMs) return cached.assets;
    const assets = await provider.listAssets();
    assetCache.set(provider.name, { loadedAtMs: nowMs, assets });
    return assets;
  }

  function assetRow(asset: ProviderAsset, amountEurCents: number): AssetRow {
    return {
      asset_code: asset.assetCode,
      asset_name: asset.assetName,
      blockchain_code: asset.blockchainCode,
      blockchain_name: asset.blockchainName,
      is_evm: asset.isEvm,
      is_stable: asset.isStable,
      amount: formatUnits(unitsForEurCents(amountEurCents, asset.rateEur, asset.decimals), asset.decimals),
      decimals: asset.decimals,
      display_decimals: asset.displayDecimals,
    };
  }

  /** A top-up's records in order. Records never change, so only the slots past the remembered ones are read. */
  async function readEvents(topupId: number): Promise<TopupEventDocument[]> {
    const events = [...(eventCache.get(String(topupId)) ?? [])];
    for (let seq = events.length + 1; seq <= eventsPerTopupMax; seq++) {
      const event = await store.events.findOne({ _id: `${topupId}:${seq}` });
      if (!event) break;
      events.push(event);
    }
    if (events.length > 0) eventCache.set(String(topupId), events);
    return events;
  }

  async function loadTopup(topupKey: string): Promise<TopupDocument | null> {
    const cached = topupCache.get(topupKey);
    if (cached) return cached;
    const topup = await store.topups.findOne({ _id: topupKey });
    if (topup) topupCache.set(topupKey, topup);
    return topup;
  }

  async function creditApplied(key: string): Promise<boolean> {
    if (appliedCache.get(key)) return true;
    const applied = (await store.appliedCredits.findOne({ _id: key }, { projection: { _id: 1 } })) !== null;
    if (applied) appliedCache.set(key, true);
    return applied;
  }

  function view(topup: TopupDocument, progress: TopupProgress): TopupView {
    return {
      id: topup.id,
      customer_id: topup.customer_id,
      status: deriveTopupStatus(topup.amount_eur_cents, progress, topup.expires_at, clock.now()),
      amount_eur_cents: topup.amount_eur_cents,
      credited_eur_cents: progress.creditedEurCents,
      deposit_address: topup.deposit_address,
      deposit_amount: topup.deposit_amount,
      deposit_amount_decimal: formatUnits(BigInt(topup.deposit_amount), topup.decimals),
      asset_code: topup.asset_code,
      blockchain_code: topup.blockchain_code,
      expires_at: topup.expires_at.toISOString(),
      created_at: topup.created_at.toISOString(),
      is_evm: topup.is_evm,
      ...(topup.payment_uri ? { payment_uri: topup.payment_uri } : {}),
      decimals: topup.decimals,
    };
  }

  /**
   * What the customer sees as credited: payments whose wallet credit is done (marker present), so a top-up never
   * reads `paid` before the balance has the money. A recorded payment whose credit is still owed (the wallet was
   * unreachable) shows up once the next delivery or reconciliation pass finishes it.
   */
  async function customerProgress(events: TopupEventDocument[]): Promise<TopupProgress> {
    const payments = events.filter((event) => event.kind === 'payment' && event.eur_cents > 0);
    const applied = await Promise.all(payments.map((event) => creditApplied(event.key)));
    return {
      creditedEurCents: payments.reduce((sum, event, index) => sum + (applied[index] ? event.eur_cents : 0), 0),
      expired: events.some((event) => event.kind === 'expired'),
    };
  }

  /** Inserts a record at the next free sequence of the top-up; returns the record that holds `key` (ours or an earlier one). */
  async function appendEvent(
    topup: TopupDocument,
    key: string,
    build: (progress: Progress) => Omit<TopupEventDocument, '_id' | 'topup_id' | 'seq' | 'key' | 'created_at'> | null,
  ): Promise<{ event: TopupEventDocument | null; created: boolean; events: TopupEventDocument[] }> {
    for (let attempt = 0; attempt < slotAttemptsMax; attempt++) {
      // First try on the remembered records without reading: the insert itself detects a newer record (E11000
      // on its slot), and then the records are read.
      const remembered = attempt === 0 ? eventCache.get(String(topup.id)) : undefined;
      const events = remembered ? [...remembered] : await readEvents(topup.id);
      const existing = events.find((event) => event.key === key);
      if (existing) return { event: existing, created: false, events };
      const progress = progressOf(events);
      const fields = build(progress);
      if (!fields) return { event: null, created: false, events };
      const seq = progress.seq + 1;
      const event: TopupEventDocument = { _id: `${topup.id}:${seq}`, topup_id: topup.id, seq, key, ...fields, created_at: clock.now() };
      try {
        await eventInserts.insert(event);
        eventCache.set(String(topup.id), [...events, event]);
        changed(topup.customer_id);
        return { event, created: true, events: [...events, event] };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        // Another replica recorded something on this top-up first.
        forget(topup.customer_id);
        const occupant = await store.events.findOne({ _id: event._id });
        if (occupant && occupant.key !== key) continue;
        // The key exists: found on the next read of this top-up's records, or (never on the normal path) elsewhere.
        if (!occupant) {
          const elsewhere = await store.events.findOne({ key });
          if (elsewhere && elsewhere.topup_id !== topup.id) {
            throw new AppError('conflict', `${key} is already recorded for top-up ${elsewhere.topup_id}`);
          }
        }
      }
    }
    throw new AppError('unavailable', 'the top-up is changing too fast; retry shortly');
  }

  async function marketRateFor(topup: TopupDocument): Promise<string> {
    const assets = await assetsOf(providerNamed(topup.provider));
    const asset = assets.find(
      (candidate) => candidate.assetCode === topup.asset_code && candidate.blockchainCode === topup.blockchain_code,
    );
    if (!asset) throw new AppError('unavailable', `the provider no longer quotes ${topup.asset_code} on ${topup.blockchain_code}`);
    return asset.rateEur;
  }

  /**
   * Records a confirmed provider transaction once and credits the wallet once. Safe to call any number of
   * times, concurrently, from postbacks and the reconciliation poller: the record decides the amount (at the
   * first arrival) and the wallet's entry id makes the credit exactly-once; a crash between the two is
   * finished by the next delivery or poll.
   */
  async function applyConfirmedTransaction(
    topup: TopupDocument,
    providerName: string,
    transaction: ProviderTransaction,
  ): Promise<{ event: TopupEventDocument; newlyCredited: boolean }> {
    const key = `tx:${providerName}:${transaction.transactionId}`;
    const units = BigInt(transaction.amountUnits);
    const insideWindow = transaction.receivedAt.getTime() < topup.expires_at.getTime();
    let marketRateEur: string | undefined;
    const build = (progress: Progress) => {
      // Late coin needs the market rate, fetched only when the record does not exist yet.
      if (!insideWindow && marketRateEur === undefined) return null;
      const plan = planPayment({
        quoteEurCents: topup.amount_eur_cents,
        quoteUnits: BigInt(topup.deposit_amount),
        expiresAt: topup.expires_at,
        decimals: topup.decimals,
        progress,
        units,
        receivedAt: transaction.receivedAt,
        ...(marketRateEur !== undefined ? { marketRateEur } : {}),
      });
      return {
        kind: 'payment' as const,
        provider_transaction_id: transaction.transactionId,
        amount_units: transaction.amountUnits,
        received_at: transaction.receivedAt,
        rate: plan.rate,
        ...(plan.rate === 'market' && marketRateEur !== undefined ? { market_rate_eur: marketRateEur } : {}),
        eur_cents: plan.eurCents,
        credited_after_eur_cents: plan.creditedAfterEurCents,
        quoted_units_after: plan.quotedUnitsAfter.toString(),
        quoted_eur_cents_after: plan.quotedEurCentsAfter,
        expired_after: progress.expired,
      };
    };
    let result = await appendEvent(topup, key, build);
    if (!result.event) {
      marketRateEur = await marketRateFor(topup);
      result = await appendEvent(topup, key, build);
    }
    const event = result.event!;
    if (event.amount_units !== transaction.amountUnits) {
      logger.error(
        { topup_id: topup.id, key, recorded: event.amount_units, reported: transaction.amountUnits },
        'provider reported a different amount for a recorded transaction; the recorded one stands',
      );
    }
    let newlyCredited = result.created;
    // A record this call inserted cannot have been credited yet; an older one may have been.
    const applied = !result.created && (await creditApplied(key));
    if (!applied) {
      if (event.eur_cents > 0) {
        const entryId = `topup:${providerName}:${transaction.transactionId}`;
        if (result.created && options.crashBeforeCreditPrefix && entryId.startsWith(options.crashBeforeCreditPrefix)) {
          logger.fatal({ entry_id: entryId }, 'fault injection: crashing between the payment record and the wallet credit');
          (options.exit ?? ((code: number) => process.exit(code)))(137);
        }
        const movement = await wallet.call<{ applied: boolean }>(
          'Credit',
          {
            customer_id: topup.customer_id,
            entry_id: entryId,
            amount_eur_cents: event.eur_cents,
            reason: 'topup',
            reference: `topup:${topup.id}`,
          },
          { deadlineMs: options.walletDeadlineMs },
        );
        newlyCredited = newlyCredited || movement.applied;
      }
      await appliedInserts.insertIfAbsent({ _id: key, applied_at: clock.now() });
      appliedCache.set(key, true);
      changed(topup.customer_id);
    }
    return { event, newlyCredited };
  }

  /**
   * The largest n for which `present(n)` holds, given that present ids have no gaps and `from` is present (or 0):
   * gallops forward (from+1, from+2, from+4, …) then bisects, so a stale or missing hint costs O(log n) lookups.
   */
  async function lastPresent(from: number, present: (n: number) => Promise<boolean>): Promise<number> {
    let low = from;
    let step = 1;
    while (await present(low + step)) {
      low += step;
      step *= 2;
    }
    let high = low + step;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await present(middle)) low = middle;
      else high = middle;
    }
    return low;
  }

  const idClaimed = async (n: number) => (await store.topupIdClaims.findOne({ _id: String(n) }, { projection: { _id: 1 } })) !== null;

  /** Claims the next integer id by inserting it; ids stay gapless, so the last one is found by galloping. */
  async function claimTopupId(): Promise<number> {
    let candidate = (await lastPresent(lastTopupId, idClaimed)) + 1;
    for (let attempt = 0; attempt < slotAttemptsMax; attempt++) {
      if (await insertIfAbsent(store.topupIdClaims, { _id: String(candidate), claimed_at: clock.now() })) {
        lastTopupId = Math.max(lastTopupId, candidate);
        return candidate;
      }
      candidate = (await lastPresent(candidate, idClaimed)) + 1;
    }
    throw new AppError('unavailable', 'could not allocate a top-up id; retry shortly');
  }

  async function customerHead(customerId: string): Promise<number> {
    const head = await lastPresent(
      customerHeads.get(customerId) ?? 0,
      async (n) => (await store.customerTopups.findOne({ _id: `${customerId}:${n}` }, { projection: { _id: 1 } })) !== null,
    );
    rememberCustomerHead(customerId, head);
    return head;
  }

  function rememberCustomerHead(customerId: string, head: number): void {
    if (!customerHeads.has(customerId) && customerHeads.size >= customerHeadsCachedMax)
      customerHeads.delete(customerHeads.keys().next().value as string);
    customerHeads.set(customerId, Math.max(head, customerHeads.get(customerId) ?? 0));
  }

  async function appendCustomerTopup(customerId: string, topupId: number, createdAt: Date): Promise<void> {
    let n = await customerHead(customerId);
    for (let attempt = 0; attempt < slotAttemptsMax; attempt++) {
      n += 1;
      if (await insertIfAbsent(store.customerTopups, { _id: `${customerId}:${n}`, topup_id: topupId, created_at: createdAt })) {
        customerSlotCache.set(`${customerId}:${n}`, { topupId, createdAt });
        rememberCustomerHead(customerId, n);
        return;
      }
    }
    throw new AppError('unavailable', 'could not record the top-up for the customer; retry shortly');
  }

  async function cancelAtProvider(topup: TopupDocument): Promise<void> {
    try {
      await providerNamed(topup.provider).cancelInvoice(topup.invoice_id);
      await insertIfAbsent(store.cancelledInvoices, { _id: topup._id, cancelled_at: clock.now() });
      owedCancellations.delete(topup._id);
    } catch (error) {
      if (owedCancellations.size < owedCancellationsMax) owedCancellations.add(topup._id);
      logger.warn({ err: error, topup_id: topup.id }, 'invoice not cancelled at the provider yet; the expiry sweep retries');
    }
  }

  /** Records the expiry of a quote that received nothing, then makes sure its invoice is cancelled at the provider. */
  async function expireOne(topup: TopupDocument): Promise<boolean> {
    const now = clock.now();
    const result = await appendEvent(topup, `expired:${topup.id}`, (progress) => {
      // Only a quote that received nothing fails; one already paid in part stays partial.
      if (progress.creditedEurCents > 0 || progress.expired || now.getTime() < topup.expires_at.getTime()) return null;
      return {
        kind: 'expired',
        eur_cents: 0,
        credited_after_eur_cents: progress.creditedEurCents,
        quoted_units_after: progress.quotedUnits.toString(),
        quoted_eur_cents_after: progress.quotedEurCents,
        expired_after: true,
      };
    });
    const expiry = result.event ?? result.events.find((event) => event.kind === 'expired');
    if (expiry && !(await store.cancelledInvoices.findOne({ _id: topup._id }, { projection: { _id: 1 } }))) await cancelAtProvider(topup);
    return result.created;
  }

  return {
    async listAssets(amountEurCents: number): Promise<AssetRow[]> {
      assertTopupAmount(amountEurCents);
      const assets = await assetsOf(providerNamed(options.defaultProvider));
      return assets.filter((asset) => amountEurCents >= asset.minimumEurCents).map((asset) => assetRow(asset, amountEurCents));
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
      const provider = providerNamed(options.defaultProvider);
      const asset = (await assetsOf(provider)).find(
        (candidate) => candidate.assetCode === input.assetCode && candidate.blockchainCode === input.blockchainCode,
      );
      if (!asset || input.amountEurCents < asset.minimumEurCents) {
        throw new AppError(
          'invalid_request',
          `${input.assetCode} on ${input.blockchainCode} is not offered for ${input.amountEurCents} cents; pick a row of GET /v1/wallet/assets for this amount`,
          {
            param: 'asset_code',
            ...(asset ? { details: { minimum_eur_cents: asset.minimumEurCents } } : {}),
          },
        );
      }
      if (input.isEvm === true && !asset.isEvm)
        throw new AppError('invalid_request', `${asset.blockchainName} is not an EVM chain; is_evm must be false or omitted`, {
          param: 'is_evm',
        });
      const current = await wallet.call<{ balance_eur_cents: number; held_eur_cents: number; balance_cap_eur_cents: number }>(
        'GetWallet',
        { customer_id: input.customerId },
        { deadlineMs: options.walletDeadlineMs },
      );
      if (current.balance_eur_cents + current.held_eur_cents + input.amountEurCents > current.balance_cap_eur_cents) {
        const room = Math.max(0, current.balance_cap_eur_cents - current.balance_eur_cents - current.held_eur_cents);
        throw new AppError(
          'balance_cap_exceeded',
          `this top-up would take the balance past the cap of ${current.balance_cap_eur_cents} cents; at most ${room} cents fit now`,
          {
            param: 'amount_eur_cents',
            details: {
              balance_cap_eur_cents: current.balance_cap_eur_cents,
              balance_eur_cents: current.balance_eur_cents,
              held_eur_cents: current.held_eur_cents,
              room_eur_cents: room,
            },
          },
        );
      }
      const units = unitsForEurCents(input.amountEurCents, asset.rateEur, asset.decimals);
      const createdAt = clock.now();
      const expiresAt = new Date(createdAt.getTime() + quoteWindowMs);
      const topupId = await claimTopupId();
      const invoice = await provider.createInvoice({
        orderId: String(topupId),
        amountEurCents: input.amountEurCents,
        assetCode: asset.assetCode,
        blockchainCode: asset.blockchainCode,
        amountUnits: units.toString(),
        expiresAt,
        isEvm: input.isEvm === true,
      });
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
      await store.topups.insertOne(topup);
      topupCache.set(topup._id, topup);
      eventCache.set(topup._id, []);
      await store.providerInvoices.insertOne({ _id: `${provider.name}:${invoice.invoiceId}`, topup_id: topupId });
      await appendCustomerTopup(input.customerId, topupId, createdAt);
      changed(input.customerId);
      logger.info(
        {
          topup_id: topupId,
          customer_id: input.customerId,
          amount_eur_cents: input.amountEurCents,
          asset_code: asset.assetCode,
          blockchain_code: asset.blockchainCode,
        },
        'top-up created',
      );
      return view(topup, { creditedEurCents: 0, expired: false });
    },

    async getTopup(customerId: string, topupId: number): Promise<TopupView> {
      assertCustomerId(customerId);
      const topup = Number.isSafeInteger(topupId) && topupId > 0 ? await loadTopup(String(topupId)) : null;
      // Another customer's top-up is indistinguishable from a missing one.
      if (!topup || topup.customer_id !== customerId) throw new AppError('not_found', `no top-up ${topupId}`, { param: 'id' });
      return view(topup, await customerProgress(await readEvents(topup.id)));
    },

    async listPendingTopups(customerId: string): Promise<TopupView[]> {
      assertCustomerId(customerId);
      const now = clock.now();
      const open = (views: TopupView[]) =>
        views.filter(
          (candidate) =>
            new Date(candidate.expires_at).getTime() > now.getTime() &&
            isAwaitingCoin(candidate.status, new Date(candidate.expires_at), now),
        );
      const known = pendingFreshMs > 0 ? pendingCache.get(customerId) : undefined;
      if (known && performance.now() - known.computedAtMs <= pendingFreshMs) return open(known.views);
      const startedAt = changeCounter;
      const computedAtMs = performance.now();
      const head = await customerHead(customerId);
      // Anything created before the last quote window began can no longer be awaiting coin.
      const oldestOpenMs = now.getTime() - quoteWindowMs - 60_000;
      const topupIds: number[] = [];
      for (let n = head; n >= 1 && head - n < pendingScanMax; n--) {
        const slotKey = `${customerId}:${n}`;
        let slot = customerSlotCache.get(slotKey);
        if (!slot) {
          const found = await store.customerTopups.findOne({ _id: slotKey });
          if (!found) continue;
          slot = { topupId: found.topup_id, createdAt: found.created_at };
          customerSlotCache.set(slotKey, slot);
        }
        if (slot.createdAt.getTime() < oldestOpenMs) break;
        topupIds.push(slot.topupId);
      }
      const views = await Promise.all(
        topupIds.map(async (topupId) => {
          // Paid stays paid and a quote that has ended awaits nothing: neither needs its records read.
          if (settledCache.get(String(topupId))) return null;
          const topup = await loadTopup(String(topupId));
          if (!topup || topup.expires_at.getTime() <= now.getTime()) return null;
          const current = view(topup, await customerProgress(await readEvents(topupId)));
          if (current.status === 'paid') settledCache.set(String(topupId), true);
          return current;
        }),
      );
      const candidates = views.filter((candidate): candidate is TopupView => candidate !== null);
      if (pendingFreshMs > 0 && changes.lastChange(customerId) <= startedAt)
        pendingCache.set(customerId, { views: candidates, computedAtMs });
      return open(candidates);
    },

    /** Another replica changed this customer's top-ups (its broadcast): the next read computes them afresh. */
    observeChanged(customerId: string): void {
      if (typeof customerId === 'string' && customerIdPattern.test(customerId)) forget(customerId);
    },

    async handlePostback(providerName: string, body: Buffer, headers: Record<string, string>): Promise<PostbackOutcome> {
      const provider = providerNamed(providerName);
      if (body.length > postbackBytesMax) throw new AppError('invalid_request', `postback body exceeds ${postbackBytesMax} bytes`);
      if (!provider.verifyPostback(body, headers)) throw new AppError('unauthenticated', 'postback signature missing or invalid');
      const postback = provider.parsePostback(body);
      if (Math.abs(clock.now().getTime() - postback.sentAt.getTime()) > options.postbackToleranceMs) {
        throw new AppError('unauthenticated', 'postback timestamp is outside the accepted window (a replay, or a clock far off)');
      }
      if (postback.transaction.status !== 'confirmed') return { outcome: 'ignored', credited_eur_cents: 0 };
      // The order id we gave the provider is our top-up id; it counts only if the invoice matches too.
      let topup = postback.orderId && /^[1-9][0-9]{0,15}$/.test(postback.orderId) ? await loadTopup(postback.orderId) : null;
      if (!topup || topup.provider !== provider.name || topup.invoice_id !== postback.invoiceId) {
        const pointer = await store.providerInvoices.findOne({ _id: `${provider.name}:${postback.invoiceId}` });
        topup = pointer ? await loadTopup(String(pointer.topup_id)) : null;
      }
      if (!topup) throw new AppError('not_found', `no top-up for invoice ${postback.invoiceId}`);
      if (postback.assetCode !== topup.asset_code || postback.blockchainCode !== topup.blockchain_code) {
        // The provider would have to misroute coin for this; nothing sensible can be credited automatically.
        logger.error(
          { topup_id: topup.id, asset_code: postback.assetCode, blockchain_code: postback.blockchainCode },
          'postback asset differs from the top-up; not credited, needs an operator',
        );
        return { outcome: 'ignored', topup_id: topup.id, credited_eur_cents: 0, customer_id: topup.customer_id };
      }
      const { event, newlyCredited } = await applyConfirmedTransaction(topup, provider.name, postback.transaction);
      return {
        outcome: newlyCredited ? 'credited' : 'already_credited',
        topup_id: topup.id,
        credited_eur_cents: event.eur_cents,
        customer_id: topup.customer_id,
      };
    },

    /**
     * One bounded pass of the expiry sweep: the next `batchSize` top-ups (by expiry time) whose quote has ended,
     * from where the previous pass stopped; fails those that received nothing and cancels their invoices, then
     * retries cancellations the provider refused before. A restarted process looks back RECONCILE_LOOKBACK_MS.
     */
    async expireDue(batchSize: number): Promise<{ expired: number; checked: number }> {
      const now = clock.now();
      const cursor = expiryCursor ?? { expiresAt: new Date(now.getTime() - options.reconcileLookbackMs), id: '' };
      const due = await store.topups
        .find({
          $and: [
            { expires_at: { $lte: now } },
            { $or: [{ expires_at: { $gt: cursor.expiresAt } }, { expires_at: cursor.expiresAt, _id: { $gt: cursor.id } }] },
          ],
        })
        .sort({ expires_at: 1, _id: 1 })
        .limit(batchSize)
        .toArray();
      let expired = 0;
      let reached = cursor;
      for (const topup of due) {
        try {
          if (await expireOne(topup)) expired += 1;
        } catch (error) {
          // Stop here so the next pass starts with this top-up again.
          logger.warn({ err: error, topup_id: topup.id }, 'could not expire a top-up; the next sweep retries');
          break;
        }
        reached = { expiresAt: topup.expires_at, id: topup._id };
      }
      expiryCursor = reached;
      for (const topupKey of [...owedCancellations].slice(0, batchSize)) {
        const topup = await store.topups.findOne({ _id: topupKey });
        if (topup) await cancelAtProvider(topup);
        else owedCancellations.delete(topupKey);
      }
      return { expired, checked: due.length };
    },

    /**
     * One bounded pass of reconciliation: asks the provider about the next `batchSize` top-ups whose quote is
     * open or ended within the look-back, and credits any confirmed payment a lost postback left behind.
     */
    async reconcileStep(batchSize: number): Promise<{ checked: number; credited: number; wrapped: boolean }> {
      const cutoff = new Date(clock.now().getTime() - options.reconcileLookbackMs);
      const open = await store.topups
        .find({ _id: { $gt: reconcileCursor }, expires_at: { $gt: cutoff } })
        .sort({ _id: 1 })
        .limit(batchSize)
        .toArray();
      let credited = 0;
      for (const topup of open) {
        try {
          const invoice = await providerNamed(topup.provider).getInvoice(topup.invoice_id);
          for (const transaction of invoice.transactions) {
            if (transaction.status !== 'confirmed') continue;
            const { newlyCredited } = await applyConfirmedTransaction(topup, topup.provider, transaction);
            if (newlyCredited) {
              credited += 1;
              logger.info(
                { topup_id: topup.id, provider_transaction_id: transaction.transactionId },
                'reconciliation credited a payment no postback delivered',
              );
            }
          }
        } catch (error) {
          logger.warn({ err: error, topup_id: topup.id }, 'reconciliation could not check a top-up; it is retried on the next pass');
        }
      }
      const wrapped = open.length < batchSize;
      reconcileCursor = wrapped ? '' : open[open.length - 1]!._id;
      return { checked: open.length, credited, wrapped };
    },
  };
}
