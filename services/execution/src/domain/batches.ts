import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Clock } from '@mtx/shared/clock';
import {
  connectorCodecs,
  type CloseAccountStatus,
  type CloseReplyMessage,
  type LegResultMessage,
  type LookupEntryMessage,
  type LookupReplyMessage,
  type TicketResultMessage,
} from '@mtx/shared/connector/messages';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';
import { isDuplicateKeyError } from '@mtx/shared/mongo';
import { retcode, retcodeDescription } from '@mtx/shared/trading';
import { findOutcomes, type BatchDocument, type ExecutionStore, type OpenBatchDocument, type OutcomeDocument, type Platform, type StoredLeg, type UnsettledDocument } from '../store/execution-store';
import { GroupWriter } from '../store/group-writer';
import type { AccountRegistry, ResolvedAccount } from './accounts';
import { randomBase62 } from './secrets';
import { executionMetrics } from './metrics';
import type { TerminalClient, TerminalResponse } from './terminals';
import { validateCloseOrders, validatePlaceOrders, type CloseOrdersInput, type NormalizedCloseAccount, type NormalizedLeg, type PlaceOrdersInput } from './validation';

export type LegStatus = 'filled' | 'placed' | 'rejected' | 'unavailable' | 'unknown';

export interface OrderLegResult {
  account_id: string;
  platform: Platform;
  symbol: string;
  operation: string;
  volume: number;
  status: LegStatus;
  order: number;
  deal: number;
  price?: number;
  bid?: number;
  ask?: number;
  retcode?: number;
  retcode_description?: string;
  message: string;
  latency_ms: number;
}

export interface TicketResult {
  ticket: number;
  symbol: string;
  type: string;
  kind: string;
  volume: number;
  status: 'closed' | 'failed' | 'skipped' | 'unknown';
  retcode?: number;
  retcode_description?: string;
  price?: number;
  message: string;
}

export interface CloseAccountResult {
  account_id: string;
  platform: Platform;
  status: CloseAccountStatus;
  matched: number;
  closed: number;
  message: string;
  latency_ms: number;
  results: TicketResult[];
}

export interface PlaceSummary {
  requested: number;
  filled: number;
  placed: number;
  failed: number;
  unknown: number;
}

export interface CloseSummary {
  accounts: number;
  matched: number;
  closed: number;
  failed: number;
  unknown: number;
  accounts_unknown: number;
}

export interface PlaceOrdersResult {
  batch_id: string;
  summary: PlaceSummary;
  results: OrderLegResult[];
}

export interface CloseOrdersResult {
  batch_id: string;
  summary: CloseSummary;
  results: CloseAccountResult[];
}

export interface BatchView {
  batch_id: string;
  kind: 'orders' | 'close';
  created_at: string;
  settled: boolean;
  orders_summary?: PlaceSummary;
  orders?: OrderLegResult[];
  close_summary?: CloseSummary;
  accounts?: CloseAccountResult[];
}

export interface BatchServiceConfig {
  EXECUTION_DEADLINE_MS: number;
  BATCHES_IN_FLIGHT_MAX: number;
  PING_DEADLINE_MS: number;
  LATE_REPLY_WINDOW_MS: number;
  RECONCILE_SETTLE_AFTER_MS: number;
  RECONCILE_GIVE_UP_AFTER_MS: number;
  RECOVERY_AFTER_MS: number;
}

const tracer = trace.getTracer('mtx-execution');

/**
 * Adds a batch's outcomes to the leg-outcome counter once per platform and status rather than once per leg:
 * every add hashes its attributes, and a 20-leg batch has 20 legs but usually one or two distinct pairs.
 */
function countOutcomes(batchKind: 'orders' | 'close' | 'close.ticket', outcomes: Array<[platform: string, status: string]>): void {
  const counts = new Map<string, { platform: string; status: string; count: number }>();
  for (const [platform, status] of outcomes) {
    const key = `${platform} ${status}`;
    const entry = counts.get(key);
    if (entry) entry.count += 1;
    else counts.set(key, { platform, status, count: 1 });
  }
  for (const { platform, status, count } of counts.values()) executionMetrics.legOutcomes.add(count, { 'mtx.platform': platform, 'mtx.batch_kind': batchKind, 'mtx.status': status });
}

export function placeSummary(results: Array<Pick<OrderLegResult, 'status'>>): PlaceSummary {
  const count = (status: LegStatus) => results.filter((result) => result.status === status).length;
  return { requested: results.length, filled: count('filled'), placed: count('placed'), failed: count('rejected') + count('unavailable'), unknown: count('unknown') };
}

export function closeSummary(results: CloseAccountResult[]): CloseSummary {
  const summary: CloseSummary = { accounts: results.length, matched: 0, closed: 0, failed: 0, unknown: 0, accounts_unknown: 0 };
  for (const account of results) {
    summary.matched += account.matched;
    summary.closed += account.closed;
    summary.failed += account.results.filter((ticket) => ticket.status === 'failed').length;
    summary.unknown += account.results.filter((ticket) => ticket.status === 'unknown').length;
    if ((account.status === 'failed' || account.status === 'unavailable') && account.results.length === 0) summary.failed += 1;
    if (account.status === 'unknown') summary.accounts_unknown += 1;
  }
  return summary;
}

function closeStatusOf(results: TicketResult[]): CloseAccountStatus {
  const closed = results.filter((ticket) => ticket.status === 'closed').length;
  if (results.length === 0) return 'nothing_matched';
  if (closed === results.length) return 'closed';
  if (closed > 0) return 'partial';
  if (results.some((ticket) => ticket.status === 'unknown')) return 'unknown';
  return 'failed';
}

function withRetcode<T extends { retcode?: number; retcode_description?: string }>(target: T, code: number | undefined): T {
  if (code) {
    target.retcode = code;
    target.retcode_description = retcodeDescription(code);
  }
  return target;
}

/** A leg result from the terminal's message, keeping the leg's own fields. */
export function legResultOf(leg: StoredLeg, message: LegResultMessage, latencyMs: number): OrderLegResult {
  const result: OrderLegResult = {
    account_id: leg.account_id,
    platform: leg.platform,
    symbol: leg.symbol,
    operation: leg.operation,
    volume: message.volume || leg.volume,
    status: message.status,
    order: message.order,
    deal: message.deal,
    message: message.message,
    latency_ms: latencyMs,
  };
  if (message.status === 'filled' || message.status === 'placed') {
    if (message.price !== undefined && message.price !== null) result.price = message.price;
    if (message.bid !== undefined && message.bid !== null) result.bid = message.bid;
    if (message.ask !== undefined && message.ask !== null) result.ask = message.ask;
  }
  return withRetcode(result, message.retcode);
}

function plainLeg(leg: StoredLeg, status: LegStatus, message: string, latencyMs: number, code?: number): OrderLegResult {
  const result: OrderLegResult = { account_id: leg.account_id, platform: leg.platform, symbol: leg.symbol, operation: leg.operation, volume: leg.volume, status, order: 0, deal: 0, message, latency_ms: latencyMs };
  return withRetcode(result, code);
}

function ticketResultOf(message: TicketResultMessage): TicketResult {
  const result: TicketResult = { ticket: message.ticket, symbol: message.symbol, type: message.type, kind: message.kind, volume: message.volume, status: message.status, message: message.message };
  if (message.price !== undefined && message.price !== null) result.price = message.price;
  return withRetcode(result, message.retcode);
}

function closeResultOf(accountId: string, platform: Platform, reply: CloseReplyMessage, latencyMs: number): CloseAccountResult {
  return { account_id: accountId, platform, status: reply.status, matched: reply.matched, closed: reply.closed, message: reply.message, latency_ms: latencyMs, results: reply.results.map(ticketResultOf) };
}

function plainClose(accountId: string, platform: Platform, status: CloseAccountStatus, message: string, latencyMs: number): CloseAccountResult {
  return { account_id: accountId, platform, status, matched: 0, closed: 0, message, latency_ms: latencyMs, results: [] };
}

const requestedBatchIdPattern = /^bat_[0-9A-Za-z]{20}$/;

/** The caller's batch id, when it chose one (a retry of an Idempotency-Key request reuses it), else a fresh one. */
function batchIdFor(requested: string | undefined): string {
  if (requested === undefined || requested === '') return `bat_${randomBase62(20)}`;
  if (!requestedBatchIdPattern.test(requested)) throw new AppError('invalid_request', 'batch_id must be bat_ followed by 20 letters or digits', { param: 'batch_id' });
  return requested;
}

function describeFailure(response: Exclude<TerminalResponse, { kind: 'reply' }>, platform: Platform, timeoutMs: number): { status: 'unavailable' | 'unknown' | 'rejected'; message: string } {
  switch (response.kind) {
    case 'no_responders':
      return { status: 'unavailable', message: `no ${platform} terminal is running for this account; nothing was sent` };
    case 'timeout':
      return { status: 'unknown', message: `no reply from the terminal within ${timeoutMs} ms; the order may have executed and will be reconciled` };
    case 'service_error':
      if (response.code === 503) return { status: 'unavailable', message: `the terminal is overloaded; nothing was sent (${response.message})` };
      if (response.code === 400) return { status: 'rejected', message: `the terminal could not read the request; nothing was sent (${response.message})` };
      return { status: 'unknown', message: `the terminal failed while handling the request (${response.message}); it will be reconciled` };
  }
}

async function insertAll<T extends { _id: string }>(collection: { insertMany(documents: any[], options: { ordered: boolean }): Promise<unknown> }, documents: T[]): Promise<void> {
  if (documents.length === 0) return;
  try {
    await collection.insertMany(documents, { ordered: false });
  } catch (error) {
    const writeErrors = (error as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> }).writeErrors;
    const onlyDuplicates = Array.isArray(writeErrors) && writeErrors.length > 0 && writeErrors.every((item) => (item.code ?? item.err?.code) === 11000);
    if (!onlyDuplicates && !isDuplicateKeyError(error)) throw error;
  }
}

export interface BatchServiceOptions {
  store: ExecutionStore;
  registry: AccountRegistry;
  terminals: TerminalClient;
  clock: Clock;
  logger: Logger;
  config: BatchServiceConfig;
}

/**
 * Batches: validate in full, fan out one NATS request per account, aggregate until the deadline, store every
 * outcome, take late replies, and reconcile what stayed unknown by looking the client ids up at the broker.
 */
export class BatchService {
  private reconciling: Promise<{ checked: number; settled: number; pending: number }> | undefined;
  private readonly batchWriter: GroupWriter<BatchDocument>;
  private readonly openWriter: GroupWriter<OpenBatchDocument>;
  private readonly outcomeWriter: GroupWriter<OutcomeDocument>;
  private readonly unsettledWriter: GroupWriter<UnsettledDocument>;
  private inFlight = 0;

  constructor(private readonly options: BatchServiceOptions) {
    this.batchWriter = new GroupWriter(options.store.batches);
    this.openWriter = new GroupWriter(options.store.openBatches);
    this.outcomeWriter = new GroupWriter(options.store.outcomes);
    this.unsettledWriter = new GroupWriter(options.store.unsettled);
  }

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  /** Bounds the batches this replica works on at once; a refused batch has sent nothing and may be retried. */
  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.options.config.BATCHES_IN_FLIGHT_MAX) {
      throw new AppError('unavailable', `the execution service is handling ${this.inFlight} batches; nothing was sent, retry shortly`);
    }
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
    }
  }

  private async resolveOwned(customerId: string, ids: Array<{ account_id: string; param: string }>): Promise<Map<string, ResolvedAccount>> {
    const resolved = await this.options.registry.resolve([...new Set(ids.map((item) => item.account_id))]);
    const owned = new Map<string, ResolvedAccount>();
    for (const item of ids) {
      const account = resolved.get(item.account_id);
      // Another customer's account is reported exactly like one that does not exist.
      if (!account || account.document.customer_id !== customerId) {
        throw new AppError('unknown_account', `no account ${item.account_id} among this customer's accounts (see GET /v1/accounts)`, { param: item.param });
      }
      owned.set(item.account_id, account);
    }
    return owned;
  }

  private async writeAhead(batch: BatchDocument): Promise<void> {
    try {
      await Promise.all([this.batchWriter.insert([batch]), this.openWriter.insert([{ _id: batch._id, created_at: batch.created_at, deadline_at: batch.deadline_at }])]);
    } catch (error) {
      this.options.logger.error({ err: error, batch_id: batch._id }, 'batch could not be recorded; nothing was sent');
      throw new AppError('unavailable', 'the batch could not be recorded, so nothing was sent; retry shortly');
    }
  }

  /**
   * A caller-chosen batch id may already be recorded (the write-ahead tolerates the duplicate): by an earlier
   * attempt of the same request, which is what it is for, and then its legs' client ids make the connectors
   * answer with the original outcomes. Recorded for another customer or kind, it is refused before anything is sent.
   */
  private async assertBatchOwner(batchId: string, customerId: string, kind: BatchDocument['kind']): Promise<void> {
    const recorded = await this.options.store.batches.findOne({ _id: batchId }, { projection: { customer_id: 1, kind: 1 } });
    if (!recorded || recorded.customer_id !== customerId || recorded.kind !== kind) {
      throw new AppError('conflict', `batch id ${batchId} is recorded for another request; nothing was sent`, { param: 'batch_id' });
    }
  }

  private async persistOutcomes(batchId: string, results: Array<Record<string, any>>, unsettled: UnsettledDocument[]): Promise<void> {
    const writtenAt = this.options.clock.now();
    const outcome: OutcomeDocument = { _id: batchId, results, source: 'reply', written_at: writtenAt };
    try {
      await Promise.all([this.outcomeWriter.insert([outcome]), this.unsettledWriter.insert(unsettled)]);
      await this.openWriter.delete(batchId);
    } catch (error) {
      // The open marker stays: recovery marks the legs unknown and reconciliation settles them from the broker.
      this.options.logger.error({ err: error, batch_id: batchId }, 'batch outcomes could not be stored; recovery will reconcile them');
    }
  }

  private async settle(batchId: string, index: number, result: Record<string, any>, source: 'late_reply' | 'reconciliation'): Promise<boolean> {
    let inserted = true;
    try {
      await this.options.store.settlements.insertOne({ _id: `${batchId}:${index}`, batch_id: batchId, index, result, source, settled_at: this.options.clock.now() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      inserted = false;
    }
    await this.options.store.unsettled.deleteOne({ _id: `${batchId}:${index}` });
    if (inserted) this.options.logger.info({ batch_id: batchId, index, source, status: result.status }, 'unknown outcome settled');
    return inserted;
  }

  // place --------------------------------------------------------------------------------------------------

  placeOrders(customerId: string, input: PlaceOrdersInput & { batch_id?: string }): Promise<PlaceOrdersResult> {
    return this.bounded(() => this.placeBatch(customerId, input));
  }

  private async placeBatch(customerId: string, input: PlaceOrdersInput & { batch_id?: string }): Promise<PlaceOrdersResult> {
    const startedMs = this.nowMs();
    const legs = validatePlaceOrders(input, startedMs);
    const accounts = await this.resolveOwned(
      customerId,
      legs.map((leg) => ({ account_id: leg.account_id, param: `orders[${leg.index}].account_id` })),
    );
    const batchId = batchIdFor(input.batch_id);
    const deadlineMs = startedMs + this.options.config.EXECUTION_DEADLINE_MS;
    const storedLegs: StoredLeg[] = legs.map((leg) => ({
      account_id: leg.account_id,
      platform: accounts.get(leg.account_id)!.document.platform,
      client_id: `${batchId}-${leg.index}`,
      symbol: leg.symbol,
      operation: leg.operation,
      volume: leg.volume,
    }));
    await this.writeAhead({ _id: batchId, customer_id: customerId, kind: 'orders', created_at: new Date(startedMs), deadline_at: new Date(deadlineMs), legs: storedLegs });
    if (input.batch_id) await this.assertBatchOwner(batchId, customerId, 'orders');

    return tracer.startActiveSpan('execution.fanout', { attributes: { 'mtx.customer_id': customerId, 'mtx.batch_id': batchId, 'mtx.batch_kind': 'orders', 'mtx.legs': legs.length } }, async (span) => {
      try {
        const results = new Array<OrderLegResult>(legs.length);
        const byAccount = new Map<string, NormalizedLeg[]>();
        for (const leg of legs) byAccount.set(leg.account_id, [...(byAccount.get(leg.account_id) ?? []), leg]);
        await Promise.all([...byAccount].map(([accountId, accountLegs]) => this.placeOnAccount(customerId, batchId, deadlineMs, accounts.get(accountId)!, accountLegs, storedLegs, results)));
        const unsettled: UnsettledDocument[] = [];
        results.forEach((result, index) => {
          if (result.status !== 'unknown') return;
          const leg = storedLegs[index]!;
          unsettled.push({ _id: `${batchId}:${index}`, batch_id: batchId, index, kind: 'orders', customer_id: customerId, account_id: leg.account_id, platform: leg.platform, client_ids: [leg.client_id], client_id_prefix: '', deadline_at: new Date(deadlineMs), created_at: new Date(startedMs) });
        });
        countOutcomes('orders', storedLegs.map((leg, index) => [leg.platform, results[index]!.status]));
        await this.persistOutcomes(batchId, results, unsettled);
        const summary = placeSummary(results);
        span.setAttributes({ 'mtx.filled': summary.filled, 'mtx.placed': summary.placed, 'mtx.failed': summary.failed, 'mtx.unknown': summary.unknown });
        if (summary.unknown > 0) span.setStatus({ code: SpanStatusCode.ERROR, message: `${summary.unknown} leg(s) unknown` });
        return { batch_id: batchId, summary, results };
      } finally {
        span.end();
      }
    });
  }

  private async placeOnAccount(customerId: string, batchId: string, deadlineMs: number, account: ResolvedAccount, legs: NormalizedLeg[], storedLegs: StoredLeg[], results: OrderLegResult[]): Promise<void> {
    const document = account.document;
    const requestStartedMs = this.nowMs();
    const requestStartedAt = performance.now();
    const finish = () => {
      const troubled = legs.map((leg) => results[leg.index]!).find((result) => result.status === 'unknown' || result.status === 'unavailable');
      if (!troubled) return;
      this.options.terminals.traceFailedRequest(
        'place',
        document.platform,
        document._id,
        requestStartedAt,
        { 'mtx.customer_id': customerId, 'mtx.batch_id': batchId, 'mtx.leg_index': legs.map((leg) => leg.index), 'mtx.status': legs.map((leg) => results[leg.index]!.status), 'mtx.retcode': legs.map((leg) => results[leg.index]!.retcode ?? 0) },
        `${troubled.status}: ${troubled.message}`,
      );
    };
    if (document.billing_status === 'suspended') {
      for (const leg of legs) results[leg.index] = plainLeg(storedLegs[leg.index]!, 'rejected', `not sent: the seat of account ${document._id} is suspended for non-payment; top up the balance to trade again`, 0, retcode.TRADE_DISABLED);
      finish();
      return;
    }
    const payload = connectorCodecs.placeRequest.encode({
      account_id: document._id,
      credentials: { server: document.server, login: document.login, password: account.password },
      legs: legs.map((leg) => ({
        client_id: storedLegs[leg.index]!.client_id,
        leg_index: leg.index,
        symbol: leg.symbol,
        operation: leg.operation,
        volume: leg.volume,
        price: leg.price,
        slippage: leg.slippage,
        stop_loss: leg.stop_loss,
        take_profit: leg.take_profit,
        stop_limit_price: leg.stop_limit_price,
        expiration: leg.expiration,
        comment: leg.comment,
        expert_id: leg.expert_id,
      })),
      deadline_unix_ms: deadlineMs,
      batch_id: batchId,
    });
    const timeoutMs = Math.max(1, deadlineMs - this.nowMs());
    const response = await this.options.terminals.request(document.platform, document._id, 'place', payload, {
      timeoutMs,
      lateWindowMs: this.options.config.LATE_REPLY_WINDOW_MS,
      onLate: (late) => void this.takeLatePlace(batchId, legs, storedLegs, late, requestStartedMs),
    });
    const latencyMs = this.nowMs() - requestStartedMs;
    if (response.kind === 'reply') {
      const reply = connectorCodecs.placeReply.decode(response.data);
      const byIndex = new Map(reply.results.map((result) => [result.leg_index, result]));
      for (const leg of legs) {
        const message = byIndex.get(leg.index);
        results[leg.index] = message ? legResultOf(storedLegs[leg.index]!, message, latencyMs) : plainLeg(storedLegs[leg.index]!, 'unknown', 'the terminal answered without this leg; it will be reconciled', latencyMs);
      }
    } else {
      const failure = describeFailure(response, document.platform, timeoutMs);
      for (const leg of legs) results[leg.index] = plainLeg(storedLegs[leg.index]!, failure.status, failure.message, latencyMs);
    }
    finish();
  }

  private async takeLatePlace(batchId: string, legs: NormalizedLeg[], storedLegs: StoredLeg[], response: TerminalResponse, startedMs: number): Promise<void> {
    if (response.kind !== 'reply') return;
    try {
      const reply = connectorCodecs.placeReply.decode(response.data);
      const latencyMs = this.nowMs() - startedMs;
      for (const message of reply.results) {
        if (message.status === 'unknown' || !legs.some((leg) => leg.index === message.leg_index)) continue;
        await this.settle(batchId, message.leg_index, legResultOf(storedLegs[message.leg_index]!, message, latencyMs), 'late_reply');
      }
    } catch (error) {
      this.options.logger.error({ err: error, batch_id: batchId }, 'late reply could not be stored; reconciliation will settle the legs');
    }
  }

  // close --------------------------------------------------------------------------------------------------

  private async unreachable(accounts: ResolvedAccount[]): Promise<string[]> {
    const checks = await Promise.all(
      accounts.map(async (account) => {
        const document = account.document;
        const response = await this.options.terminals.request(
          document.platform,
          document._id,
          'ping',
          connectorCodecs.pingRequest.encode({ account_id: document._id, credentials: { server: document.server, login: document.login, password: account.password } }),
          { timeoutMs: this.options.config.PING_DEADLINE_MS },
        );
        const reachable = response.kind === 'reply' && connectorCodecs.pingReply.decode(response.data).connected;
        return reachable ? undefined : document._id;
      }),
    );
    return checks.filter((id): id is string => id !== undefined);
  }

  closeOrders(customerId: string, input: CloseOrdersInput & { require_reachable?: boolean; batch_id?: string }): Promise<CloseOrdersResult> {
    return this.bounded(() => this.closeBatch(customerId, input));
  }

  private async closeBatch(customerId: string, input: CloseOrdersInput & { require_reachable?: boolean; batch_id?: string }): Promise<CloseOrdersResult> {
    const startedMs = this.nowMs();
    const entries = validateCloseOrders(input);
    const accounts = await this.resolveOwned(
      customerId,
      entries.map((entry) => ({ account_id: entry.account_id, param: `accounts[${entry.index}].account_id` })),
    );
    if (input.require_reachable) {
      const unreachable = await this.unreachable(entries.map((entry) => accounts.get(entry.account_id)!));
      if (unreachable.length > 0) {
        throw new AppError('accounts_unreachable', `${unreachable.length} account(s) have no reachable terminal; nothing was sent`, { details: { account_ids: unreachable } });
      }
    }
    const batchId = batchIdFor(input.batch_id);
    const deadlineMs = this.nowMs() + this.options.config.EXECUTION_DEADLINE_MS;
    const stored = entries.map((entry) => ({ account_id: entry.account_id, platform: accounts.get(entry.account_id)!.document.platform, client_id_base: `${batchId}-a${entry.index}` }));
    await this.writeAhead({ _id: batchId, customer_id: customerId, kind: 'close', created_at: new Date(startedMs), deadline_at: new Date(deadlineMs), accounts: stored });
    if (input.batch_id) await this.assertBatchOwner(batchId, customerId, 'close');

    return tracer.startActiveSpan('execution.fanout', { attributes: { 'mtx.customer_id': customerId, 'mtx.batch_id': batchId, 'mtx.batch_kind': 'close', 'mtx.accounts': entries.length } }, async (span) => {
      try {
        const results = await Promise.all(entries.map((entry) => this.closeOnAccount(customerId, batchId, deadlineMs, accounts.get(entry.account_id)!, entry, stored[entry.index]!.client_id_base)));
        const unsettled: UnsettledDocument[] = [];
        results.forEach((result, index) => {
          const unknownTickets = result.results.filter((ticket) => ticket.status === 'unknown');
          if (result.status !== 'unknown' && unknownTickets.length === 0) return;
          const base = stored[index]!;
          const wholeAccount = result.results.length === 0;
          unsettled.push({
            _id: `${batchId}:${index}`,
            batch_id: batchId,
            index,
            kind: 'close',
            customer_id: customerId,
            account_id: base.account_id,
            platform: base.platform,
            client_ids: wholeAccount ? [] : unknownTickets.map((ticket) => `${base.client_id_base}-t${ticket.ticket}`),
            client_id_prefix: wholeAccount ? `${base.client_id_base}-` : '',
            deadline_at: new Date(deadlineMs),
            created_at: new Date(startedMs),
          });
        });
        await this.persistOutcomes(batchId, results, unsettled);
        const summary = closeSummary(results);
        countOutcomes('close', results.map((account) => [account.platform, account.status]));
        countOutcomes('close.ticket', results.flatMap((account) => account.results.map((ticket) => [account.platform, ticket.status] as [string, string])));
        span.setAttributes({ 'mtx.matched': summary.matched, 'mtx.closed': summary.closed, 'mtx.failed': summary.failed, 'mtx.unknown': summary.unknown, 'mtx.accounts_unknown': summary.accounts_unknown });
        if (summary.accounts_unknown > 0 || summary.unknown > 0) span.setStatus({ code: SpanStatusCode.ERROR, message: 'some closes are unknown' });
        return { batch_id: batchId, summary, results };
      } finally {
        span.end();
      }
    });
  }

  private async closeOnAccount(customerId: string, batchId: string, deadlineMs: number, account: ResolvedAccount, entry: NormalizedCloseAccount, clientIdBase: string): Promise<CloseAccountResult> {
    const document = account.document;
    const startedMs = this.nowMs();
    const startedAt = performance.now();
    const payload = connectorCodecs.closeRequest.encode({
      account_id: document._id,
      credentials: { server: document.server, login: document.login, password: account.password },
      selector: entry.selector,
      tickets: entry.tickets,
      volume: entry.volume,
      slippage: entry.slippage,
      client_id_base: clientIdBase,
      deadline_unix_ms: deadlineMs,
      closes_max: 20,
      batch_id: batchId,
    });
    const timeoutMs = Math.max(1, deadlineMs - startedMs);
    const response = await this.options.terminals.request(document.platform, document._id, 'close', payload, {
      timeoutMs,
      lateWindowMs: this.options.config.LATE_REPLY_WINDOW_MS,
      onLate: (late) => void this.takeLateClose(batchId, entry.index, document._id, document.platform, late, startedMs),
    });
    const latencyMs = this.nowMs() - startedMs;
    let result: CloseAccountResult;
    if (response.kind === 'reply') {
      result = closeResultOf(document._id, document.platform, connectorCodecs.closeReply.decode(response.data), latencyMs);
    } else {
      const failure = describeFailure(response, document.platform, timeoutMs);
      const status: CloseAccountStatus = failure.status === 'rejected' ? 'failed' : failure.status;
      result = plainClose(document._id, document.platform, status, failure.message.replace('the order may have executed', 'closes may have executed'), latencyMs);
    }
    if (result.status === 'unknown' || result.status === 'unavailable') {
      this.options.terminals.traceFailedRequest(
        'close',
        document.platform,
        document._id,
        startedAt,
        { 'mtx.customer_id': customerId, 'mtx.batch_id': batchId, 'mtx.leg_index': entry.index, 'mtx.status': result.status, 'mtx.retcode': result.results.map((ticket) => ticket.retcode ?? 0) },
        `${result.status}: ${result.message}`,
      );
    }
    return result;
  }

  private async takeLateClose(batchId: string, index: number, accountId: string, platform: Platform, response: TerminalResponse, startedMs: number): Promise<void> {
    if (response.kind !== 'reply') return;
    try {
      const result = closeResultOf(accountId, platform, connectorCodecs.closeReply.decode(response.data), this.nowMs() - startedMs);
      if (result.status === 'unknown') return;
      await this.settle(batchId, index, result, 'late_reply');
    } catch (error) {
      this.options.logger.error({ err: error, batch_id: batchId }, 'late close reply could not be stored; reconciliation will settle it');
    }
  }

  // reading ------------------------------------------------------------------------------------------------

  async getBatch(customerId: string, batchId: string): Promise<BatchView> {
    const batch = /^bat_[0-9A-Za-z]{1,64}$/.test(batchId) ? await this.options.store.batches.findOne({ _id: batchId }) : null;
    if (!batch || batch.customer_id !== customerId) throw new AppError('not_found', `no batch ${batchId}`, { param: 'batch_id' });
    const count = batch.kind === 'orders' ? (batch.legs ?? []).length : (batch.accounts ?? []).length;
    const indexes = Array.from({ length: count }, (_, index) => index);
    const [outcomes, settlements] = await Promise.all([this.storedOutcomes(batchId, indexes), Promise.all(indexes.map((index) => this.options.store.settlements.findOne({ _id: `${batchId}:${index}` })))]);
    const inFlight = this.nowMs() <= batch.deadline_at.getTime();
    const pendingMessage = inFlight ? 'in progress' : 'the outcome was not recorded yet; it will be reconciled';
    const view: BatchView = { batch_id: batchId, kind: batch.kind, created_at: batch.created_at.toISOString(), settled: true };
    if (batch.kind === 'orders') {
      const legs = batch.legs ?? [];
      view.orders = indexes.map((index) => (settlements[index]?.result ?? outcomes[index] ?? plainLeg(legs[index]!, 'unknown', pendingMessage, 0)) as OrderLegResult);
      view.orders_summary = placeSummary(view.orders);
      view.settled = view.orders.every((leg) => leg.status !== 'unknown');
    } else {
      const accounts = batch.accounts ?? [];
      view.accounts = indexes.map((index) => (settlements[index]?.result ?? outcomes[index] ?? plainClose(accounts[index]!.account_id, accounts[index]!.platform, 'unknown', pendingMessage, 0)) as CloseAccountResult);
      view.close_summary = closeSummary(view.accounts);
      view.settled = view.accounts.every((account) => account.status !== 'unknown' && account.results.every((ticket) => ticket.status !== 'unknown'));
    }
    return view;
  }

  private storedOutcomes(batchId: string, indexes: number[]): Promise<Array<Record<string, any> | undefined>> {
    return findOutcomes(this.options.store, batchId, indexes);
  }

  // reconciliation -----------------------------------------------------------------------------------------

  /** Runs one pass; concurrent callers share the pass in progress, then run their own (so they see fresh state). */
  async reconcile(batchId?: string): Promise<{ checked: number; settled: number; pending: number }> {
    while (this.reconciling) await this.reconciling.catch(() => undefined);
    this.reconciling = this.reconcilePass(batchId).finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /** Batches whose process died before storing outcomes: every leg without one becomes unknown and unsettled. */
  private async recover(): Promise<void> {
    const nowMs = this.nowMs();
    const open = await this.options.store.openBatches.find({}).limit(1_000).toArray();
    for (const marker of open) {
      if (marker.deadline_at.getTime() + this.options.config.RECOVERY_AFTER_MS > nowMs) continue;
      const batch = await this.options.store.batches.findOne({ _id: marker._id });
      if (batch) {
        const count = batch.kind === 'orders' ? (batch.legs ?? []).length : (batch.accounts ?? []).length;
        const indexes = Array.from({ length: count }, (_, index) => index);
        const stored = await this.storedOutcomes(batch._id, indexes);
        if (stored.some((result) => result === undefined)) {
          const message = 'the execution service stopped before this outcome was recorded; it is being reconciled with the broker';
          const results: Array<Record<string, any>> = [];
          const unsettled: UnsettledDocument[] = [];
          for (const index of indexes) {
            const leg = batch.legs?.[index];
            const closeAccount = batch.accounts?.[index];
            const kept = stored[index];
            results.push(kept ?? (leg ? plainLeg(leg, 'unknown', message, 0) : plainClose(closeAccount!.account_id, closeAccount!.platform, 'unknown', message, 0)));
            if (kept) continue;
            unsettled.push({
              _id: `${batch._id}:${index}`,
              batch_id: batch._id,
              index,
              kind: batch.kind,
              customer_id: batch.customer_id,
              account_id: leg?.account_id ?? closeAccount!.account_id,
              platform: leg?.platform ?? closeAccount!.platform,
              client_ids: leg ? [leg.client_id] : [],
              client_id_prefix: leg ? '' : `${closeAccount!.client_id_base}-`,
              deadline_at: batch.deadline_at,
              created_at: batch.created_at,
            });
          }
          await insertAll(this.options.store.outcomes, [{ _id: batch._id, results, source: 'recovery', written_at: new Date(nowMs) } satisfies OutcomeDocument]);
          await insertAll(this.options.store.unsettled, unsettled);
          this.options.logger.warn({ batch_id: batch._id, legs: unsettled.length }, 'recovered a batch whose outcomes were never stored');
        }
      }
      await this.options.store.openBatches.deleteOne({ _id: marker._id });
    }
  }

  private async reconcilePass(batchId?: string): Promise<{ checked: number; settled: number; pending: number }> {
    await this.recover();
    const documents = await this.options.store.unsettled.find(batchId ? { batch_id: batchId } : {}).limit(5_000).toArray();
    let settled = 0;
    let pending = 0;
    const groups = new Map<string, UnsettledDocument[]>();
    for (const document of documents) {
      const key = `${document.batch_id}|${document.account_id}`;
      groups.set(key, [...(groups.get(key) ?? []), document]);
    }
    await Promise.all(
      [...groups.values()].map(async (group) => {
        try {
          const outcome = await this.reconcileGroup(group);
          settled += outcome.settled;
          pending += outcome.pending;
        } catch (error) {
          pending += group.length;
          this.options.logger.error({ err: error, batch_id: group[0]!.batch_id }, 'reconciliation of an account failed; retrying on the next pass');
        }
      }),
    );
    return { checked: documents.length, settled, pending };
  }

  private async reconcileGroup(group: UnsettledDocument[]): Promise<{ settled: number; pending: number }> {
    const first = group[0]!;
    const nowMs = this.nowMs();
    const account = (await this.options.registry.resolve([first.account_id])).get(first.account_id);
    if (!account) {
      // The account was disconnected: nobody can ask its broker any more. Give up after the bound.
      for (const document of group) {
        if (document.created_at.getTime() + this.options.config.RECONCILE_GIVE_UP_AFTER_MS < nowMs) {
          this.options.logger.warn({ batch_id: document.batch_id, index: document.index }, 'gave up reconciling: the account was disconnected');
          await this.options.store.unsettled.deleteOne({ _id: document._id });
        }
      }
      return { settled: 0, pending: group.length };
    }
    const clientIds = group.flatMap((document) => document.client_ids);
    const prefixes = group.map((document) => document.client_id_prefix).filter(Boolean);
    const lookups: LookupReplyMessage[] = [];
    // One lookup per account; a close account that never answered is looked up by its prefix.
    for (const prefix of prefixes.length > 0 ? prefixes : ['']) {
      const response = await this.options.terminals.request(
        account.document.platform,
        account.document._id,
        'lookup',
        connectorCodecs.lookupRequest.encode({
          account_id: account.document._id,
          credentials: { server: account.document.server, login: account.document.login, password: account.password },
          client_ids: prefix === (prefixes[0] ?? '') ? clientIds : [],
          client_id_prefix: prefix,
        }),
        { timeoutMs: this.options.config.EXECUTION_DEADLINE_MS },
      );
      if (response.kind !== 'reply') return { settled: 0, pending: group.length };
      const reply = connectorCodecs.lookupReply.decode(response.data);
      if (!reply.connected) return { settled: 0, pending: group.length };
      lookups.push(reply);
    }
    const entries = new Map<string, LookupEntryMessage>();
    for (const reply of lookups) for (const entry of reply.entries) entries.set(entry.client_id, entry);

    let settled = 0;
    let pending = 0;
    for (const document of group) {
      const pastFence = nowMs > document.deadline_at.getTime() + this.options.config.RECONCILE_SETTLE_AFTER_MS;
      const result = document.kind === 'orders' ? await this.settleLeg(document, entries, pastFence) : await this.settleCloseAccount(document, entries, pastFence);
      if (result) {
        await this.settle(document.batch_id, document.index, result, 'reconciliation');
        settled += 1;
      } else {
        pending += 1;
        if (document.created_at.getTime() + this.options.config.RECONCILE_GIVE_UP_AFTER_MS < nowMs) {
          this.options.logger.warn({ batch_id: document.batch_id, index: document.index }, 'gave up reconciling: still unknown at the broker');
          await this.options.store.unsettled.deleteOne({ _id: document._id });
        }
      }
    }
    return { settled, pending };
  }

  private async settleLeg(document: UnsettledDocument, entries: Map<string, LookupEntryMessage>, pastFence: boolean): Promise<OrderLegResult | undefined> {
    const batch = await this.options.store.batches.findOne({ _id: document.batch_id });
    const leg = batch?.legs?.[document.index];
    if (!leg) return undefined;
    const entry = entries.get(leg.client_id);
    if (entry?.state === 'done' && entry.leg) {
      const result = legResultOf(leg, entry.leg, 0);
      result.message = result.status === 'rejected' ? `${entry.leg.message} (found at the broker by reconciliation)` : 'found at the broker by reconciliation';
      return result;
    }
    if ((!entry || entry.state === 'not_found') && pastFence) {
      return plainLeg(leg, 'rejected', 'not executed: the order did not reach the broker before its deadline (checked by reconciliation)', 0, retcode.TIMEOUT);
    }
    return undefined;
  }

  private async settleCloseAccount(document: UnsettledDocument, entries: Map<string, LookupEntryMessage>, pastFence: boolean): Promise<CloseAccountResult | undefined> {
    const [stored] = await this.storedOutcomes(document.batch_id, [document.index]);
    const original = stored as CloseAccountResult | undefined;
    if (document.client_id_prefix) {
      const found = [...entries.values()].filter((entry) => entry.client_id.startsWith(document.client_id_prefix));
      if (found.some((entry) => entry.state === 'processing')) return undefined;
      const tickets = found.filter((entry) => entry.state === 'done' && entry.ticket).map((entry) => ticketResultOf(entry.ticket!));
      if (tickets.length === 0 && !pastFence) return undefined;
      const status = tickets.length === 0 ? 'failed' : closeStatusOf(tickets);
      const message = tickets.length === 0 ? 'nothing was closed: no close reached the broker before the deadline (checked by reconciliation)' : `settled by reconciliation: ${tickets.length} close(s) found at the broker`;
      return { account_id: document.account_id, platform: document.platform, status, matched: tickets.length, closed: tickets.filter((ticket) => ticket.status === 'closed').length, message, latency_ms: original?.latency_ms ?? 0, results: tickets };
    }
    if (!original) return undefined;
    const results: TicketResult[] = [];
    for (const ticket of original.results) {
      if (ticket.status !== 'unknown') {
        results.push(ticket);
        continue;
      }
      const clientId = document.client_ids.find((id) => id.endsWith(`-t${ticket.ticket}`));
      const entry = clientId ? entries.get(clientId) : undefined;
      if (entry?.state === 'done' && entry.ticket) results.push({ ...ticketResultOf(entry.ticket), message: 'found at the broker by reconciliation' });
      else if ((!entry || entry.state === 'not_found') && pastFence) {
        results.push(withRetcode({ ...ticket, status: 'failed' as const, message: 'not executed: the close did not reach the broker before its deadline (checked by reconciliation)' }, retcode.TIMEOUT));
      } else return undefined;
    }
    return { ...original, status: closeStatusOf(results), closed: results.filter((ticket) => ticket.status === 'closed').length, results, message: 'settled by reconciliation' };
  }
}
