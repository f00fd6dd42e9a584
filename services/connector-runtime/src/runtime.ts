import http from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { NatsConnection, Service, ServiceMsg } from 'nats';
import type { Logger } from '@mtx/shared/logger';
import { extractTraceContext } from '@mtx/shared/nats';
import { isPendingOperation, isStopLimitOperation, normalizeOperation, orderTypeName, retcode, retcodeDescription, roundVolumeDown, symbolMatches, isBuyType, brokerSymbols, type BrokerSymbols } from '@mtx/shared/trading';
import type { OpenItem, PlatformAdapter, TradeOutcome, BrokerRecord, SymbolDetails } from './adapter';
import { BrokerCallError, TerminalLoginError, type BrokerSession, type SessionPool } from './broker-client';
import { claimKeyPattern, type ClaimStore } from './claims';
import { MessageClaim, placeMessageClaimKey } from './message-claim';
import type { ConnectorConfig } from './config';
import {
  connectorCodecs,
  connectorOps,
  directoryToken,
  type CloseAccountStatus,
  type CloseReplyMessage,
  type CloseRequestMessage,
  type ConnectorOp,
  type LegResultMessage,
  type LegStatus,
  type LookupEntryMessage,
  type LookupReplyMessage,
  type LookupRequestMessage,
  type OrderLegMessage,
  type PingReplyMessage,
  type PingRequestMessage,
  type PlaceReplyMessage,
  type PlaceRequestMessage,
  type TicketResultMessage,
} from '@mtx/shared/connector/messages';

export interface ConnectorRuntimeOptions {
  platform: 'mt4' | 'mt5';
  config: ConnectorConfig;
  nats: NatsConnection;
  logger: Logger;
  adapter: PlatformAdapter;
  sessions: SessionPool;
  claims: ClaimStore;
  version?: string;
}

const duplicatePollMs = 100;
const tracer = trace.getTracer('mtx-connector');

export function legStatusOf(code: number): LegStatus {
  if (code === retcode.DONE || code === retcode.DONE_PARTIAL) return 'filled';
  if (code === retcode.PLACED) return 'placed';
  return 'rejected';
}

/** Per-account close status from its tickets (DESIGN.md §4). */
export function closeAccountStatus(results: Array<Pick<TicketResultMessage, 'status'>>): CloseAccountStatus {
  const matched = results.length;
  const closed = results.filter((result) => result.status === 'closed').length;
  if (matched === 0) return 'nothing_matched';
  if (closed === matched) return 'closed';
  if (closed > 0) return 'partial';
  if (results.some((result) => result.status === 'unknown')) return 'unknown';
  return 'failed';
}

/** Whether an open item of an account at `broker` is picked by a close selector. */
export function selectorMatches(item: OpenItem, selector: { symbol: string; symbol_match: string; side: string; kind: string; magic?: number }, broker: BrokerSymbols): boolean {
  const mode = selector.symbol_match === 'base' ? 'base' : 'exact';
  if (!symbolMatches(item.symbol, selector.symbol, mode, broker)) return false;
  const kind = selector.kind || 'position';
  if (kind !== 'any' && item.kind !== kind) return false;
  const side = selector.side || 'any';
  if (side === 'long' && !isBuyType(item.type)) return false;
  if (side === 'short' && isBuyType(item.type)) return false;
  if (selector.magic !== undefined && selector.magic !== null && item.magic !== selector.magic) return false;
  return true;
}

function sleep(durationMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, durationMs));
}

/**
 * The connector: a NATS service answering `<root>.<platform>.*.<op>` in a queue group, stateless apart from
 * cached sessions. Every order it sends carries a client id it first claimed exclusively, so no client id is
 * ever sent to a trade server twice, whatever the replicas, restarts or redeliveries; a duplicate request
 * is answered from the trade server's record of the original instead.
 */
export class ConnectorRuntime {
  private service: Service | undefined;
  private inflight = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly symbolCache = new Map<string, { details: SymbolDetails; expiresAtMs: number }>();

  constructor(private readonly options: ConnectorRuntimeOptions) {}

  get inflightRequests(): number {
    return this.inflight;
  }

  get running(): boolean {
    return !!this.service && !this.service.isStopped;
  }

  async start(): Promise<void> {
    const { platform, config } = this.options;
    const requestTypes: Record<ConnectorOp, [string, string]> = {
      place: ['PlaceRequest', 'PlaceReply'],
      close: ['CloseRequest', 'CloseReply'],
      lookup: ['LookupRequest', 'LookupReply'],
      ping: ['PingRequest', 'PingReply'],
      servers: ['ServersRequest', 'ServersReply'],
    };
    this.service = await this.options.nats.services.add({
      name: `connector-${platform}`,
      version: this.options.version ?? '1.0.0',
      description: `${platform.toUpperCase()} terminals: places and closes orders on trade servers`,
      queue: config.CONNECTOR_QUEUE_GROUP,
      metadata: { platform, protocol: 'mtx.connector.v1' },
    });
    for (const op of connectorOps) {
      this.service.addEndpoint(op, {
        subject: `${config.TERMINAL_SUBJECT_ROOT}.${platform}.*.${op}`,
        metadata: { request: `mtx.connector.v1.${requestTypes[op][0]}`, reply: `mtx.connector.v1.${requestTypes[op][1]}` },
        handler: (error, message) => {
          if (error) {
            this.options.logger.error({ err: error }, 'connector endpoint failed');
            return;
          }
          this.dispatch(op, message);
        },
      });
    }
    this.options.logger.info({ platform, subjects: `${config.TERMINAL_SUBJECT_ROOT}.${platform}.*.<op>`, queue: config.CONNECTOR_QUEUE_GROUP }, 'connector serving');
  }

  /** Stops taking requests and waits (up to the grace) for the ones in hand to finish. */
  async stop(graceMs: number): Promise<void> {
    await this.service?.stop().catch(() => undefined);
    if (this.inflight === 0) return;
    await Promise.race([new Promise<void>((resolve) => this.idleWaiters.push(resolve)), sleep(graceMs)]);
  }

  private dispatch(op: ConnectorOp, message: ServiceMsg): void {
    if (this.inflight >= this.options.config.CONNECTOR_CONCURRENCY_MAX) {
      // Nothing was done: the requester may treat the account as unavailable.
      this.send(() => message.respondError(503, 'connector overloaded; nothing was sent'));
      return;
    }
    this.inflight += 1;
    this.handle(op, message).finally(() => {
      this.inflight -= 1;
      if (this.inflight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  private async handle(op: ConnectorOp, message: ServiceMsg): Promise<void> {
    const tokens = message.subject.split('.');
    const subjectAccount = tokens[tokens.length - 2] ?? '';
    const parent = extractTraceContext(message.headers);
    const span = tracer.startSpan(
      `connector.${op}`,
      { kind: SpanKind.SERVER, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': message.subject, 'mtx.platform': this.options.platform, 'mtx.account_id': subjectAccount } },
      parent,
    );
    // Carried by hand to every trade server call and log line of this request: the connectors run a synchronous
    // context manager (instrumentation.ts), which forgets the active span at the first await.
    const requestContext = trace.setSpan(parent, span);
    try {
      let reply: Uint8Array;
      try {
        reply = await this.answer(op, message.data, subjectAccount, span, requestContext);
      } catch (error) {
        if (error instanceof MalformedRequestError) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          this.send(() => message.respondError(400, error.message));
          return;
        }
        throw error;
      }
      this.send(() => message.respond(reply));
    } catch (error) {
      // Some orders may have gone out before the failure: "500" tells the requester the outcome is unknown.
      this.logWithin(requestContext, (logger) => logger.error({ err: error, subject: message.subject }, 'connector request failed'));
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'internal error' });
      this.send(() => message.respondError(500, 'connector failed while handling the request; outcome unknown'));
    } finally {
      span.end();
    }
  }

  /** Logs with the request's trace_id and span_id (the logger's mixin reads the active span). */
  private logWithin(traceContext: Context, write: (logger: Logger) => void): void {
    context.with(traceContext, () => write(this.options.logger));
  }

  /** Answers the requester; a connection closed meanwhile (shutdown) only loses the answer, which is logged. */
  private send(answer: () => unknown): void {
    try {
      answer();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not answer a request (connection closing); the requester reconciles it');
    }
  }

  private decode<T>(codec: { decode(bytes: Uint8Array): T }, data: Uint8Array, subjectAccount: string): T {
    let decoded: T;
    try {
      decoded = codec.decode(data);
    } catch (error) {
      throw new MalformedRequestError(`request is not a valid protobuf message: ${(error as Error).message}`);
    }
    const accountId = (decoded as { account_id?: string }).account_id;
    if (accountId !== subjectAccount) throw new MalformedRequestError(`account_id ${accountId} does not match the subject's ${subjectAccount}`);
    const credentials = (decoded as { credentials?: { server?: string; login?: string } }).credentials;
    if (!credentials || !credentials.server || !credentials.login) throw new MalformedRequestError('credentials (server, login, password) are required');
    return decoded;
  }

  private async answer(op: ConnectorOp, data: Uint8Array, subjectAccount: string, span: Span, traceContext: Context): Promise<Uint8Array> {
    switch (op) {
      case 'place': {
        const request = this.decode(connectorCodecs.placeRequest, data, subjectAccount);
        span.setAttribute('mtx.batch_id', request.batch_id);
        const reply = await this.place(request, traceContext);
        span.setAttribute('mtx.leg_index', reply.results.map((result) => result.leg_index));
        span.setAttribute('mtx.status', reply.results.map((result) => result.status));
        span.setAttribute('mtx.retcode', reply.results.map((result) => result.retcode));
        const troubled = reply.results.find((result) => result.status === 'unknown' || result.status === 'unavailable');
        if (troubled) span.setStatus({ code: SpanStatusCode.ERROR, message: `${troubled.status}: ${troubled.message}` });
        return connectorCodecs.placeReply.encode(reply);
      }
      case 'close': {
        const request = this.decode(connectorCodecs.closeRequest, data, subjectAccount);
        span.setAttribute('mtx.batch_id', request.batch_id);
        const reply = await this.close(request, traceContext);
        span.setAttribute('mtx.status', reply.status);
        span.setAttribute('mtx.matched', reply.matched);
        span.setAttribute('mtx.closed', reply.closed);
        if (reply.status === 'unknown' || reply.status === 'unavailable') span.setStatus({ code: SpanStatusCode.ERROR, message: `${reply.status}: ${reply.message}` });
        return connectorCodecs.closeReply.encode(reply);
      }
      case 'lookup': {
        const request = this.decode(connectorCodecs.lookupRequest, data, subjectAccount);
        return connectorCodecs.lookupReply.encode(await this.lookup(request, traceContext));
      }
      case 'servers': {
        if (subjectAccount !== directoryToken) throw new MalformedRequestError(`servers is asked on ${this.options.config.TERMINAL_SUBJECT_ROOT}.${this.options.platform}.${directoryToken}.servers`);
        const servers = await this.options.adapter.servers(this.options.config.BROKER_READ_DEADLINE_MS, traceContext);
        return connectorCodecs.serversReply.encode({ servers });
      }
      case 'ping': {
        const request = this.decode(connectorCodecs.pingRequest, data, subjectAccount);
        const reply = await this.ping(request, traceContext);
        span.setAttribute('mtx.connected', reply.connected);
        return connectorCodecs.pingReply.encode(reply);
      }
    }
  }

  // place --------------------------------------------------------------------------------------------------

  async place(request: PlaceRequestMessage, traceContext: Context = context.active()): Promise<PlaceReplyMessage> {
    let sessionError: TerminalLoginError | undefined;
    try {
      await this.options.sessions.get(request.account_id, request.credentials, traceContext);
    } catch (error) {
      if (!(error instanceof TerminalLoginError)) throw error;
      sessionError = error;
    }
    const messageKey = placeMessageClaimKey(request);
    const messageClaim = messageKey ? this.claimFor(messageKey, traceContext) : undefined;
    const results = await Promise.all(request.legs.map((leg) => this.placeLeg(request, leg, sessionError, messageClaim ?? this.claimFor(leg.client_id, traceContext), traceContext)));
    return { account_id: request.account_id, results };
  }

  /** A claim taken once, when first needed; a failure of the claim store is logged within the request's trace. */
  private claimFor(key: string, traceContext: Context): MessageClaim {
    return new MessageClaim(this.options.claims, key, (error) => this.logWithin(traceContext, (logger) => logger.error({ err: error }, 'claim store unavailable')));
  }

  private legResult(leg: OrderLegMessage, status: LegStatus, startedMs: number, message: string, outcome?: TradeOutcome, code?: number): LegResultMessage {
    const result: LegResultMessage = {
      client_id: leg.client_id,
      leg_index: leg.leg_index,
      status,
      order: outcome?.order ?? 0,
      deal: outcome?.deal ?? 0,
      retcode: code ?? outcome?.retcode ?? 0,
      retcode_description: '',
      message,
      latency_ms: Date.now() - startedMs,
      volume: outcome?.volume || leg.volume,
      symbol: leg.symbol,
      operation: leg.operation,
    };
    if (result.retcode) result.retcode_description = retcodeDescription(result.retcode);
    if (outcome && (status === 'filled' || status === 'placed')) {
      result.price = outcome.price;
      result.bid = outcome.bid;
      result.ask = outcome.ask;
    }
    return result;
  }

  private outcomeResult(leg: OrderLegMessage, outcome: TradeOutcome, startedMs: number, note = ''): LegResultMessage {
    const status = legStatusOf(outcome.retcode);
    const message = status === 'rejected' ? outcome.message : note;
    return this.legResult(leg, status, startedMs, message, outcome);
  }

  private async placeLeg(request: PlaceRequestMessage, leg: OrderLegMessage, sessionError: TerminalLoginError | undefined, claim: MessageClaim, traceContext: Context): Promise<LegResultMessage> {
    const startedMs = Date.now();
    const { config, platform } = this.options;
    if (!claimKeyPattern.test(leg.client_id)) return this.legResult(leg, 'rejected', startedMs, `client id ${JSON.stringify(leg.client_id)} is malformed; not sent`, undefined, retcode.INVALID);
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms) {
      return this.legResult(leg, 'rejected', startedMs, 'not sent: the request reached the terminal after its deadline', undefined, retcode.TIMEOUT);
    }
    const operation = normalizeOperation(leg.operation);
    if (!operation) return this.legResult(leg, 'rejected', startedMs, `unknown operation ${leg.operation}; not sent`, undefined, retcode.INVALID);
    if (platform === 'mt4' && isStopLimitOperation(operation)) {
      return this.legResult(leg, 'rejected', startedMs, 'MT4 has no stop-limit orders (buyStopLimit, sellStopLimit); not sent', undefined, retcode.INVALID_ORDER);
    }
    if (isPendingOperation(operation) && !(leg.price && leg.price > 0)) return this.legResult(leg, 'rejected', startedMs, 'a pending order needs a price; not sent', undefined, retcode.INVALID_PRICE);
    if (sessionError) return this.legResult(leg, 'unavailable', startedMs, `not sent: ${sessionError.message}`);

    const claimed = await claim.state();
    // Without a claim there is no guarantee against a second send, so nothing is sent.
    if (claimed === 'unavailable') return this.legResult(leg, 'unavailable', startedMs, 'not sent: the connector could not record the order id (claim store unavailable)');
    if (claimed === 'duplicate') return this.resolveDuplicate(request, leg, startedMs, traceContext);

    try {
      const outcome = await this.options.sessions.withSession(request.account_id, request.credentials, (session) =>
        this.options.adapter.place(session, leg, { deadlineUnixMs: request.deadline_unix_ms, callDeadlineMs: config.BROKER_CALL_DEADLINE_MS, defaultSlippagePoints: config.CONNECTOR_DEFAULT_SLIPPAGE_POINTS }),
        traceContext,
      );
      return this.outcomeResult(leg, outcome, startedMs);
    } catch (error) {
      if (error instanceof TerminalLoginError) return this.legResult(leg, 'unavailable', startedMs, `not sent: ${error.message}`);
      if (error instanceof BrokerCallError) {
        return this.legResult(leg, 'unknown', startedMs, `sent, but the trade server did not answer (${error.message}); it may have executed and will be reconciled`);
      }
      throw error;
    }
  }

  /** A client id claimed before: never send it again; report what the trade server did with the original. */
  private async resolveDuplicate(request: PlaceRequestMessage, leg: OrderLegMessage, startedMs: number, traceContext: Context): Promise<LegResultMessage> {
    const waitUntilMs = Math.max(request.deadline_unix_ms, Date.now());
    for (;;) {
      try {
        const records = await this.options.sessions.withSession(request.account_id, request.credentials, (session) =>
          this.options.adapter.lookup(session, [leg.client_id], '', this.options.config.BROKER_READ_DEADLINE_MS),
          traceContext,
        );
        const record = records.find((item) => item.clientId === leg.client_id);
        if (record?.state === 'done' && record.outcome) return this.outcomeResult(leg, record.outcome, startedMs, 'duplicate request: this is the outcome of the original, which was not sent again');
      } catch (error) {
        if (!(error instanceof BrokerCallError) && !(error instanceof TerminalLoginError)) throw error;
      }
      if (Date.now() + duplicatePollMs > waitUntilMs) break;
      await sleep(duplicatePollMs);
    }
    return this.legResult(leg, 'unknown', startedMs, 'duplicate request: the original is still executing or its outcome is not known yet; not sent again');
  }

  // close --------------------------------------------------------------------------------------------------

  private async symbolDetails(session: BrokerSession, symbol: string): Promise<SymbolDetails> {
    const key = `${session.server.name}|${symbol}`;
    const cached = this.symbolCache.get(key);
    if (cached && cached.expiresAtMs > Date.now()) return cached.details;
    const details = await this.options.adapter.symbol(session, symbol, this.options.config.BROKER_READ_DEADLINE_MS);
    if (this.symbolCache.size > 10_000) this.symbolCache.clear();
    this.symbolCache.set(key, { details, expiresAtMs: Date.now() + 60_000 });
    return details;
  }

  private ticketResult(item: OpenItem, status: TicketResultMessage['status'], message: string, clientId: string, outcome?: TradeOutcome, code?: number, volume?: number): TicketResultMessage {
    const result: TicketResultMessage = {
      ticket: item.ticket,
      symbol: item.symbol,
      type: orderTypeName(item.type),
      kind: item.kind,
      volume: volume ?? (outcome?.volume || item.volume),
      status,
      retcode: code ?? outcome?.retcode ?? 0,
      retcode_description: '',
      message,
      client_id: clientId,
    };
    if (result.retcode) result.retcode_description = retcodeDescription(result.retcode);
    if (outcome && outcome.price > 0) result.price = outcome.price;
    return result;
  }

  async close(request: CloseRequestMessage, traceContext: Context = context.active()): Promise<CloseReplyMessage> {
    const startedMs = Date.now();
    const { config } = this.options;
    const reply = (status: CloseAccountStatus, message: string, results: TicketResultMessage[] = []): CloseReplyMessage => ({
      account_id: request.account_id,
      status,
      matched: results.length,
      closed: results.filter((result) => result.status === 'closed').length,
      message,
      results,
      latency_ms: Date.now() - startedMs,
    });
    if (!claimKeyPattern.test(request.client_id_base)) return reply('failed', `client id base ${JSON.stringify(request.client_id_base)} is malformed; nothing sent`);
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms) return reply('failed', 'nothing sent: the request reached the terminal after its deadline');

    if (!request.tickets.length && !request.selector) return reply('failed', 'neither a selector nor tickets were given; nothing sent');
    let items: OpenItem[];
    const missing: number[] = [];
    try {
      items = await this.options.sessions.withSession(request.account_id, request.credentials, async (session) => {
        missing.length = 0;
        if (request.tickets.length > 0) {
          const found = await Promise.all(request.tickets.map((ticket) => this.options.adapter.getTicket(session, ticket, config.BROKER_READ_DEADLINE_MS)));
          const present: OpenItem[] = [];
          found.forEach((item, index) => (item ? present.push(item) : missing.push(request.tickets[index]!)));
          return present;
        }
        const selector = request.selector!;
        const open = await this.options.adapter.listOpen(session, (selector.kind || 'position') as 'position' | 'pending' | 'any', config.BROKER_READ_DEADLINE_MS);
        const broker = brokerSymbols(session.server);
        return open.filter((item) => selectorMatches(item, selector, broker)).sort((left, right) => left.ticket - right.ticket);
      }, traceContext);
    } catch (error) {
      if (error instanceof TerminalLoginError) return reply('unavailable', `nothing sent: ${error.message}`);
      if (error instanceof BrokerCallError) return reply('unavailable', `nothing sent: the trade server did not answer the lookup (${error.message})`);
      throw error;
    }

    const cap = request.closes_max > 0 ? Math.min(request.closes_max, config.CONNECTOR_CLOSES_PER_ACCOUNT_MAX) : config.CONNECTOR_CLOSES_PER_ACCOUNT_MAX;
    // One claim for the account's closes in this message (its client id base), taken when the first close is sent.
    const claim = this.claimFor(request.client_id_base, traceContext);
    const results: TicketResultMessage[] = new Array(items.length);
    await Promise.all(
      items.map(async (item, index) => {
        const clientId = `${request.client_id_base}-t${item.ticket}`;
        if (index >= cap) {
          results[index] = this.ticketResult(item, 'skipped', `not closed: more than ${cap} orders matched on this account`, clientId, undefined, undefined, item.volume);
          return;
        }
        results[index] = await this.closeItem(request, item, clientId, claim, traceContext);
      }),
    );
    for (const ticket of missing) {
      results.push({
        ticket,
        symbol: '',
        type: '',
        kind: '',
        volume: 0,
        status: 'failed',
        retcode: retcode.INVALID,
        retcode_description: retcodeDescription(retcode.INVALID),
        message: `no open position or pending order with ticket ${ticket}; nothing sent`,
        client_id: `${request.client_id_base}-t${ticket}`,
      });
    }
    const status = closeAccountStatus(results);
    const skipped = results.filter((result) => result.status === 'skipped').length;
    const message = status === 'nothing_matched' ? 'no open order matched' : skipped > 0 ? `${skipped} matched order(s) over the cap of ${cap} were skipped` : '';
    return reply(status, message, results);
  }

  private async closeItem(request: CloseRequestMessage, item: OpenItem, clientId: string, claim: MessageClaim, traceContext: Context): Promise<TicketResultMessage> {
    const { config } = this.options;
    let volume = 0;
    try {
      if (item.kind === 'position' && request.volume !== undefined && request.volume !== null && request.volume > 0) {
        const details = await this.options.sessions.withSession(request.account_id, request.credentials, (session) => this.symbolDetails(session, item.symbol), traceContext);
        const rounded = roundVolumeDown(Math.min(request.volume, item.volume), details.volumeStep);
        if (rounded < details.volumeMin - 1e-9) {
          return this.ticketResult(item, 'failed', `partial volume ${request.volume} rounds down to ${rounded} at step ${details.volumeStep}, below the minimum ${details.volumeMin}; not sent`, clientId, undefined, retcode.INVALID_VOLUME, 0);
        }
        const remainder = roundVolumeDown(item.volume - rounded, details.volumeStep);
        if (remainder > 1e-9 && remainder < details.volumeMin - 1e-9) {
          return this.ticketResult(item, 'failed', `closing ${rounded} of ${item.volume} would leave ${remainder}, below the minimum ${details.volumeMin}; not sent`, clientId, undefined, retcode.INVALID_VOLUME, 0);
        }
        volume = rounded >= item.volume - 1e-9 ? 0 : rounded;
      }
    } catch (error) {
      if (error instanceof BrokerCallError || error instanceof TerminalLoginError) return this.ticketResult(item, 'failed', `not sent: symbol details unavailable (${error.message})`, clientId, undefined, retcode.CONNECTION, 0);
      throw error;
    }
    if (request.deadline_unix_ms > 0 && Date.now() > request.deadline_unix_ms) {
      return this.ticketResult(item, 'failed', 'not sent: the request expired before this close could be sent', clientId, undefined, retcode.TIMEOUT, 0);
    }
    const claimed = await claim.state();
    if (claimed === 'unavailable') return this.ticketResult(item, 'failed', 'not sent: the connector could not record the close id (claim store unavailable)', clientId, undefined, retcode.CONNECTION, 0);
    if (claimed === 'duplicate') return this.resolveDuplicateClose(request, item, clientId, traceContext);
    try {
      const outcome = await this.options.sessions.withSession(request.account_id, request.credentials, (session) =>
        this.options.adapter.close(session, item, { clientId, volume, slippagePoints: request.slippage ?? undefined, deadlineUnixMs: request.deadline_unix_ms, callDeadlineMs: config.BROKER_CALL_DEADLINE_MS }),
        traceContext,
      );
      const closed = outcome.retcode === retcode.DONE || outcome.retcode === retcode.DONE_PARTIAL;
      return this.ticketResult(item, closed ? 'closed' : 'failed', closed ? '' : outcome.message, clientId, outcome);
    } catch (error) {
      if (error instanceof TerminalLoginError) return this.ticketResult(item, 'failed', `not sent: ${error.message}`, clientId, undefined, retcode.CONNECTION, 0);
      if (error instanceof BrokerCallError) return this.ticketResult(item, 'unknown', `sent, but the trade server did not answer (${error.message}); it may have executed`, clientId);
      throw error;
    }
  }

  private async resolveDuplicateClose(request: CloseRequestMessage, item: OpenItem, clientId: string, traceContext: Context): Promise<TicketResultMessage> {
    const waitUntilMs = Math.max(request.deadline_unix_ms, Date.now());
    for (;;) {
      try {
        const records = await this.options.sessions.withSession(request.account_id, request.credentials, (session) => this.options.adapter.lookup(session, [clientId], '', this.options.config.BROKER_READ_DEADLINE_MS), traceContext);
        const record = records.find((entry) => entry.clientId === clientId);
        if (record?.state === 'done' && record.outcome) {
          const closed = record.outcome.retcode === retcode.DONE;
          return this.ticketResult(item, closed ? 'closed' : 'failed', 'duplicate request: this is the outcome of the original close, which was not sent again', clientId, record.outcome);
        }
      } catch (error) {
        if (!(error instanceof BrokerCallError) && !(error instanceof TerminalLoginError)) throw error;
      }
      if (Date.now() + duplicatePollMs > waitUntilMs) break;
      await sleep(duplicatePollMs);
    }
    return this.ticketResult(item, 'unknown', 'duplicate request: the original close is still executing; not sent again', clientId);
  }

  // lookup and ping -----------------------------------------------------------------------------------------

  private entryOf(record: BrokerRecord): LookupEntryMessage {
    const entry: LookupEntryMessage = { client_id: record.clientId, state: record.state, action: record.action };
    if (record.state !== 'done' || !record.outcome) return entry;
    const outcome = record.outcome;
    if (record.action === 'open') {
      const status = legStatusOf(outcome.retcode);
      const leg: LegResultMessage = {
        client_id: record.clientId,
        leg_index: 0,
        status,
        order: outcome.order,
        deal: outcome.deal,
        retcode: outcome.retcode,
        retcode_description: retcodeDescription(outcome.retcode),
        message: status === 'rejected' ? outcome.message : '',
        latency_ms: 0,
        volume: outcome.volume || record.volume,
        symbol: record.symbol,
        operation: '',
      };
      if (status !== 'rejected') {
        leg.price = outcome.price;
        leg.bid = outcome.bid;
        leg.ask = outcome.ask;
      }
      entry.leg = leg;
    } else {
      const closed = outcome.retcode === retcode.DONE;
      const item: OpenItem = { ticket: record.ticket, symbol: record.symbol, type: record.type, kind: record.kind || (record.action === 'delete' ? 'pending' : 'position'), volume: record.volume, magic: 0 };
      entry.ticket = this.ticketResult(item, closed ? 'closed' : 'failed', closed ? '' : outcome.message, record.clientId, outcome);
    }
    return entry;
  }

  async lookup(request: LookupRequestMessage, traceContext: Context = context.active()): Promise<LookupReplyMessage> {
    try {
      const records = await this.options.sessions.withSession(request.account_id, request.credentials, (session) =>
        this.options.adapter.lookup(session, request.client_ids, request.client_id_prefix, this.options.config.BROKER_READ_DEADLINE_MS),
        traceContext,
      );
      const byId = new Map(records.map((record) => [record.clientId, record]));
      const entries: LookupEntryMessage[] = request.client_ids.map((clientId) => {
        const record = byId.get(clientId);
        return record ? this.entryOf(record) : { client_id: clientId, state: 'not_found', action: '' };
      });
      for (const record of records) if (!request.client_ids.includes(record.clientId)) entries.push(this.entryOf(record));
      return { account_id: request.account_id, connected: true, message: '', entries };
    } catch (error) {
      if (error instanceof TerminalLoginError || error instanceof BrokerCallError) return { account_id: request.account_id, connected: false, message: error.message, entries: [] };
      throw error;
    }
  }

  async ping(request: PingRequestMessage, traceContext: Context = context.active()): Promise<PingReplyMessage> {
    const startedMs = Date.now();
    const base = { server: request.credentials.server, platform: this.options.platform, symbol_suffix: '', margin_mode: '' };
    try {
      const session = await this.options.sessions.withSession(request.account_id, request.credentials, async (current) => {
        await this.options.adapter.ping(current, this.options.config.BROKER_READ_DEADLINE_MS);
        return current;
      }, traceContext);
      return { ...base, connected: true, latency_ms: Date.now() - startedMs, symbol_suffix: session.server.symbol_suffix, margin_mode: session.marginMode, server: session.server.name, message: '', reason: '' };
    } catch (error) {
      if (error instanceof TerminalLoginError) return { ...base, connected: false, latency_ms: Date.now() - startedMs, message: error.message, reason: error.reason };
      if (error instanceof BrokerCallError) return { ...base, connected: false, latency_ms: Date.now() - startedMs, message: error.message, reason: 'no_connection' };
      throw error;
    }
  }
}

class MalformedRequestError extends Error {}

/** /healthz (the process runs) and /readyz (NATS connected and the service subscribed). */
export function startHealthServer(port: number, host: string, ready: () => boolean): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (request.url === '/readyz') {
      const isReady = ready();
      response.writeHead(isReady ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready: isReady }));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no such route"}}');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
