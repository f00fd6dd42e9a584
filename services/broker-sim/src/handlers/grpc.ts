import { AppError } from '@mtx/shared/errors';
import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { tracedGrpcImplementation } from '@mtx/shared/telemetry';
import type { ServerDefinition } from '../domain/catalog';
import { type Broker, BrokerError, type TradeCall } from '../app/broker';
import { createTerminalStreams } from './terminal-stream';
import type { AccountState, PendingOrder, Position, RequestRecord, TradeError, TradeOutcome } from '../domain/engine';
import type { Mt4OrderCloseRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt4OrderCloseRequest';
import type { Mt4OrderDeleteRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt4OrderDeleteRequest';
import type { Mt4OrderSendRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt4OrderSendRequest';
import type { Mt5TradeRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt5TradeRequest';
import { grpcServices } from '@mtx/shared/grpc-services';

/** Neutral trade errors as MT4 error numbers. */
const mt4Codes: Record<TradeError, number> = {
  requote: 138,
  rejected: 4,
  invalid_request: 3,
  invalid_order: 3,
  invalid_symbol: 4106,
  invalid_ticket: 4108,
  invalid_volume: 131,
  invalid_close_volume: 131,
  invalid_price: 129,
  invalid_stops: 130,
  invalid_expiration: 147,
  market_closed: 132,
  trade_disabled: 133,
  no_money: 134,
  off_quotes: 136,
  timeout: 128,
};

/** Neutral trade errors as MT5 retcodes. */
const mt5Codes: Record<TradeError, number> = {
  requote: 10004,
  rejected: 10006,
  invalid_request: 10013,
  invalid_order: 10035,
  invalid_symbol: 10013,
  invalid_ticket: 10013,
  invalid_volume: 10014,
  invalid_close_volume: 10038,
  invalid_price: 10015,
  invalid_stops: 10016,
  invalid_expiration: 10022,
  market_closed: 10018,
  trade_disabled: 10017,
  no_money: 10019,
  off_quotes: 10021,
  timeout: 10012,
};

function toAppError(error: unknown): unknown {
  if (!(error instanceof BrokerError)) return error;
  const code = (
    {
      not_found: 'not_found',
      unauthenticated: 'unauthenticated',
      unavailable: 'unavailable',
      invalid: 'invalid_request',
      conflict: 'conflict',
      wrong_platform: 'invalid_request',
    } as const
  )[error.kind];
  return new AppError(code, error.message);
}

export function renderServer(definition: ServerDefinition) {
  return {
    name: definition.name,
    platform: definition.platform,
    broker: definition.broker,
    symbol_suffix: definition.symbolSuffix,
    margin_mode: definition.defaultMarginMode,
    symbols: [...definition.symbols.values()].map((spec) => spec.name),
  };
}

export function mt4Result(outcome: TradeOutcome) {
  return {
    error: outcome.ok ? 0 : (outcome.nativeCode ?? mt4Codes[outcome.error ?? 'rejected']),
    description: outcome.message,
    ticket: outcome.order,
    price: outcome.price,
    bid: outcome.bid,
    ask: outcome.ask,
    lots: outcome.volume,
    new_ticket: outcome.newTicket ?? 0,
  };
}

export function mt5Result(outcome: TradeOutcome, pendingPlaced: boolean) {
  return {
    retcode: outcome.ok ? (pendingPlaced ? 10008 : 10009) : (outcome.nativeCode ?? mt5Codes[outcome.error ?? 'rejected']),
    deal: outcome.deal,
    order: outcome.order,
    volume: outcome.volume,
    price: outcome.price,
    bid: outcome.bid,
    ask: outcome.ask,
    comment: outcome.message,
  };
}

function mt4Order(item: Position | PendingOrder) {
  const position = 'priceOpen' in item;
  return {
    ticket: item.ticket,
    symbol: item.symbol,
    cmd: item.type,
    lots: item.volume,
    open_price: position ? item.priceOpen : item.price,
    stoploss: item.sl,
    takeprofit: item.tp,
    magic: item.magic,
    comment: item.comment,
    expiration: position ? 0 : Math.floor(item.expirationMs / 1000),
    open_time: Math.floor((position ? item.openedAtMs : item.placedAtMs) / 1000),
  };
}

function mt5Position(position: Position) {
  return {
    ticket: position.ticket,
    symbol: position.symbol,
    type: position.type,
    volume: position.volume,
    price_open: position.priceOpen,
    sl: position.sl,
    tp: position.tp,
    magic: position.magic,
    comment: position.comment,
    time: Math.floor(position.openedAtMs / 1000),
  };
}

function mt5Order(order: PendingOrder) {
  return {
    ticket: order.ticket,
    symbol: order.symbol,
    type: order.type,
    volume_current: order.volume,
    price_open: order.price,
    price_stoplimit: order.stopLimitPrice,
    sl: order.sl,
    tp: order.tp,
    magic: order.magic,
    comment: order.comment,
    expiration: Math.floor(order.expirationMs / 1000),
  };
}

function renderRecord(record: RequestRecord, account: AccountState) {
  const rendered: Record<string, unknown> = {
    client_id: record.clientId,
    state: record.state,
    action: record.action,
    symbol: record.symbol,
    ticket: record.ticket,
    type: record.type,
    volume: record.volume,
    kind: record.kind,
  };
  if (record.outcome) {
    if (account.record.platform === 'mt4') rendered.mt4 = mt4Result(record.outcome);
    else rendered.mt5 = mt5Result(record.outcome, record.action === 'open' && record.kind === 'pending');
  }
  return rendered;
}

function requirePlatform(account: AccountState, platform: 'mt4' | 'mt5'): void {
  if (account.record.platform !== platform)
    throw new BrokerError('wrong_platform', `${account.server.name} is an ${account.record.platform.toUpperCase()} server`);
}

function tradeCall(
  request: { session_id: string; client_id: string; deadline_unix_ms: number },
  call: grpc.ServerUnaryCall<unknown, unknown>,
): TradeCall {
  const cancelled = new Promise<void>((resolve) => call.once('cancelled', () => resolve()));
  return { sessionId: request.session_id, clientId: request.client_id, deadlineUnixMs: Number(request.deadline_unix_ms) || 0, cancelled };
}

/**
 * The broker-sim service: every call as a unary RPC, and the `Terminal` stream that carries the session calls
 * as frames. `drainTerminals` ends the streams at shutdown.
 */
export function createBrokerSimGrpcImplementation(
  broker: Broker,
  logger: Logger,
): {
  implementation: grpc.UntypedServiceImplementation;
  drainTerminals(graceMs: number): Promise<void>;
  terminalStats(): Record<string, number>;
} {
  const wrap =
    <TRequest>(handler: (request: TRequest, call: grpc.ServerUnaryCall<unknown, unknown>) => Promise<unknown> | unknown) =>
    async (request: TRequest, call: grpc.ServerUnaryCall<unknown, unknown>) => {
      try {
        return await handler(request, call);
      } catch (error) {
        throw toAppError(error);
      }
    };

  const implementation = unaryHandlers(
    {
      ListServers: wrap(() => ({ servers: broker.listServers().map(renderServer) })),
      GetServerInfo: wrap((request: { server: string }) => renderServer(broker.serverInfo(request.server))),
      Login: wrap(async (request: { server: string; login: string; password: string }) => {
        const { sessionId, account } = await broker.login(request.server, request.login, request.password);
        return {
          session_id: sessionId,
          server: renderServer(account.server),
          margin_mode: account.record.marginMode,
          balance: account.balance,
          currency: 'USD',
          leverage: account.record.leverage,
        };
      }),
      Ping: wrap((request: { session_id: string }) => {
        const account = broker.accountOf(request.session_id);
        const figures = broker.figures(account);
        return {
          connected: true,
          server: account.server.name,
          balance: figures.balance,
          equity: figures.equity,
          margin: figures.margin,
          free_margin: figures.freeMargin,
        };
      }),
      GetSymbol: wrap((request: { session_id: string; symbol: string }) => {
        const account = broker.accountOf(request.session_id);
        const { spec, bid, ask, tradeAllowed } = broker.symbol(account, request.symbol);
        return {
          name: spec.name,
          digits: spec.instrument.digits,
          point: spec.point,
          volume_min: spec.volumeMin,
          volume_max: spec.volumeMax,
          volume_step: spec.volumeStep,
          stops_level: spec.stopsLevel,
          contract_size: spec.instrument.contractSize,
          bid,
          ask,
          trade_allowed: tradeAllowed,
        };
      }),
      GetTicket: wrap((request: { session_id: string; ticket: number }) => {
        const account = broker.accountOf(request.session_id);
        const ticket = Number(request.ticket);
        const position = account.positions.get(ticket);
        const order = account.orders.get(ticket);
        if (!position && !order) return { found: false };
        if (account.record.platform === 'mt4') return { found: true, mt4_order: mt4Order((position ?? order)!) };
        return position ? { found: true, mt5_position: mt5Position(position) } : { found: true, mt5_order: mt5Order(order!) };
      }),
      Mt4OrderSend: wrap(async (request: Mt4OrderSendRequest__Output, call) => {
        requirePlatform(broker.accountOf(request.session_id), 'mt4');
        const price = Number(request.price) || 0;
        const { record } = await broker.openOrder(tradeCall(request, call), {
          clientId: request.client_id,
          symbol: request.symbol,
          type: request.cmd,
          volume: request.volume,
          price,
          stopLimitPrice: 0,
          sl: request.stoploss,
          tp: request.takeprofit,
          deviationPoints: price > 0 && request.cmd <= 1 ? request.slippage : undefined,
          magic: Number(request.magic) || 0,
          comment: request.comment ?? '',
          expirationMs: (Number(request.expiration) || 0) * 1000,
        });
        return mt4Result(record.outcome!);
      }),
      Mt4OrderClose: wrap(async (request: Mt4OrderCloseRequest__Output, call) => {
        requirePlatform(broker.accountOf(request.session_id), 'mt4');
        const price = Number(request.price) || 0;
        const { record } = await broker.closePosition(
          tradeCall(request, call),
          Number(request.ticket),
          request.lots,
          price,
          price > 0 ? request.slippage : undefined,
        );
        return mt4Result(record.outcome!);
      }),
      Mt4OrderDelete: wrap(async (request: Mt4OrderDeleteRequest__Output, call) => {
        requirePlatform(broker.accountOf(request.session_id), 'mt4');
        const { record } = await broker.deleteOrder(tradeCall(request, call), Number(request.ticket));
        return mt4Result(record.outcome!);
      }),
      Mt4Orders: wrap((request: { session_id: string }) => {
        const account = broker.accountOf(request.session_id);
        requirePlatform(account, 'mt4');
        return { orders: [...account.positions.values(), ...account.orders.values()].map(mt4Order) };
      }),
      Mt5OrderSend: wrap(async (request: Mt5TradeRequest__Output, call) => {
        const account = broker.accountOf(request.session_id);
        requirePlatform(account, 'mt5');
        const trade = tradeCall(request, call);
        const price = Number(request.price) || 0;
        if (request.action === 8) {
          const { record } = await broker.deleteOrder(trade, Number(request.order));
          return mt5Result(record.outcome!, false);
        }
        if (request.action === 1 && Number(request.position) > 0) {
          const { record } = await broker.closePosition(
            trade,
            Number(request.position),
            request.volume,
            price,
            price > 0 ? request.deviation : undefined,
          );
          return mt5Result(record.outcome!, false);
        }
        if ((request.action === 1 && request.type <= 1) || (request.action === 5 && request.type >= 2)) {
          const { record } = await broker.openOrder(trade, {
            clientId: request.client_id,
            symbol: request.symbol,
            type: request.type,
            volume: request.volume,
            price,
            stopLimitPrice: Number(request.stoplimit) || 0,
            sl: request.sl,
            tp: request.tp,
            deviationPoints: price > 0 && request.type <= 1 ? request.deviation : undefined,
            magic: Number(request.magic) || 0,
            comment: request.comment ?? '',
            expirationMs: (Number(request.expiration) || 0) * 1000,
          });
          return mt5Result(record.outcome!, record.kind === 'pending');
        }
        return {
          retcode: 10013,
          deal: 0,
          order: 0,
          volume: 0,
          price: 0,
          bid: 0,
          ask: 0,
          comment: `action ${request.action} with type ${request.type} is not supported`,
        };
      }),
      Mt5Positions: wrap((request: { session_id: string }) => {
        const account = broker.accountOf(request.session_id);
        requirePlatform(account, 'mt5');
        return { positions: [...account.positions.values()].map(mt5Position) };
      }),
      Mt5Orders: wrap((request: { session_id: string }) => {
        const account = broker.accountOf(request.session_id);
        requirePlatform(account, 'mt5');
        return { orders: [...account.orders.values()].map(mt5Order) };
      }),
      LookupRequests: wrap((request: { session_id: string; client_ids: string[]; client_id_prefix: string }) => {
        const account = broker.accountOf(request.session_id);
        const records = broker.lookup(request.session_id, request.client_ids ?? [], request.client_id_prefix ?? '');
        return { records: records.map((record) => renderRecord(record, account)) };
      }),
    },
    logger,
  );
  // Server spans by hand: broker-sim runs without the automatic gRPC instrumentation (see instrumentation.ts).
  const traced = tracedGrpcImplementation(grpcServices.brokerSim.serviceName, implementation);
  const terminals = createTerminalStreams(traced, logger);
  return { implementation: { ...traced, Terminal: terminals.handler }, drainTerminals: terminals.drain, terminalStats: terminals.stats };
}
