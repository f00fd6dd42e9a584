import { AppError } from '@mtx/shared/errors';
import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { tracedGrpcImplementation } from '@mtx/shared/telemetry';
import { type Broker, BrokerError, type TradeCall } from '../app/broker';
import { createTerminalStreams } from './terminal-stream';
import type { AccountState } from '../domain/engine';
import { mt4Result, mt5Result, renderRecord, renderServer, renderers } from './renderers';

export { renderServer } from './renderers';
import type { Mt4OrderCloseRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt4OrderCloseRequest';
import type { Mt4OrderDeleteRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt4OrderDeleteRequest';
import type { Mt4OrderSendRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt4OrderSendRequest';
import type { Mt5TradeRequest__Output } from '@mtx/shared/generated/proto/mtx/brokersim/v1/Mt5TradeRequest';
import { grpcServices } from '@mtx/shared/grpc-services';

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
      Logout: wrap((request: { session_id: string }) => ({ logged_out: broker.logout(request.session_id) })),
      Ping: wrap((request: { session_id: string }) => {
        const account = broker.accountOf(request.session_id);
        const figures = broker.market.figures(account);
        return {
          connected: true,
          server: account.server.name,
          balance: figures.balance,
          equity: figures.equity,
          margin: figures.margin,
          free_margin: figures.freeMargin,
        };
      }),
      AccountInfo: wrap((request: { session_id: string }) => {
        const account = broker.accountOf(request.session_id);
        const figures = broker.market.figures(account);
        return {
          login: account.record.login,
          server: account.server.name,
          currency: 'USD',
          leverage: account.record.leverage,
          balance: figures.balance,
          equity: figures.equity,
          margin: figures.margin,
          free_margin: figures.freeMargin,
          margin_level: figures.marginLevel,
          profit: figures.profit,
          server_time_unix_ms: broker.market.serverTimeMs(),
          margin_mode: account.record.marginMode,
          trade_allowed: broker.tradeAllowed(account),
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
        const { mt4Order, mt5Position, mt5Order } = renderers(broker, account);
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
        return { orders: [...account.positions.values(), ...account.orders.values()].map(renderers(broker, account).mt4Order) };
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
        return { positions: [...account.positions.values()].map(renderers(broker, account).mt5Position) };
      }),
      Mt5Orders: wrap((request: { session_id: string }) => {
        const account = broker.accountOf(request.session_id);
        requirePlatform(account, 'mt5');
        return { orders: [...account.orders.values()].map(renderers(broker, account).mt5Order) };
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
