import Fastify, { LogController } from 'fastify';
import type { Logger } from '@mtx/shared/logger';
import { instruments } from '../domain/catalog';
import { type Broker, BrokerError, type FaultSettings } from '../app/broker';
import { renderServer } from './grpc';
import type { ControlApi } from './control-api';
import { registerTerminalControl, type TerminalControl } from './terminal-control';

export type { TerminalControl } from './terminal-control';

const accountParams = {
  type: 'object',
  required: ['server', 'login'],
  properties: { server: { type: 'string' }, login: { type: 'string' } },
} as const;

const faultsBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    delay_ms: { type: 'integer', minimum: 0, maximum: 600_000 },
    hang_ms: { type: 'integer', minimum: 0, maximum: 3_600_000 },
    reject_code: { type: 'integer' },
    reject_message: { type: 'string', maxLength: 200 },
    requote: { type: 'boolean' },
    disconnect: { type: 'boolean' },
    market_closed: { type: 'boolean' },
    remaining: { type: 'integer', minimum: 1 },
  },
} as const;

interface AccountParams {
  server: string;
  login: string;
}

export type { ControlApi } from './control-api';

/**
 * Control API of the simulator, for tests, `npm start` and benchmarks: create accounts, set per-account
 * faults and latency, seed positions and pending orders, move prices, switch how an account's hosted terminal
 * answers, and read back every deal and every request an account received, so a test can prove that nothing
 * executed twice.
 */
export function buildControlApi(
  broker: Broker,
  logger: Logger,
  readiness: () => Promise<boolean>,
  terminals?: TerminalControl,
): ControlApi {
  const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) });

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof BrokerError) {
      const status = { not_found: 404, unauthenticated: 401, unavailable: 503, invalid: 400, conflict: 409, wrong_platform: 400 }[
        error.kind
      ];
      return reply.status(status).send({ error: { code: error.kind, message: error.message } });
    }
    const validation = error as { validation?: unknown; message?: string; statusCode?: number };
    if (validation.validation || (validation.statusCode && validation.statusCode < 500)) {
      return reply
        .status(validation.statusCode ?? 400)
        .send({ error: { code: 'invalid', message: validation.message ?? 'invalid request' } });
    }
    logger.error({ err: error }, 'control request failed');
    return reply.status(500).send({ error: { code: 'internal', message: 'internal error' } });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await readiness();
    return reply.status(ready ? 200 : 503).send({ ready });
  });

  app.get('/control/servers', async () => ({ servers: broker.listServers().map(renderServer) }));
  app.get('/control/stats', async () => ({ ...broker.stats(), ...terminals?.stats() }));
  registerTerminalControl(app, broker, terminals);

  app.get('/control/prices', async () => ({ prices: broker.prices.snapshot() }));
  app.post<{ Body: { symbol?: string; bid?: number; frozen?: boolean; frozen_all?: boolean } }>(
    '/control/prices',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            symbol: { type: 'string', enum: Object.keys(instruments) },
            bid: { type: 'number', exclusiveMinimum: 0 },
            frozen: { type: 'boolean' },
            frozen_all: { type: 'boolean' },
          },
        },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.frozen_all !== undefined) broker.prices.freezeAll(body.frozen_all);
      if (body.symbol) broker.prices.set(body.symbol, body.bid, body.frozen);
      await broker.applyMarket();
      return { prices: broker.prices.snapshot() };
    },
  );

  app.post<{
    Body: { server: string; login: string; password: string; balance?: number; leverage?: number; margin_mode?: 'hedging' | 'netting' };
  }>(
    '/control/accounts',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['server', 'login', 'password'],
          properties: {
            server: { type: 'string' },
            login: { type: 'string' },
            password: { type: 'string', minLength: 1 },
            balance: { type: 'number', minimum: 0 },
            leverage: { type: 'integer', minimum: 1, maximum: 5000 },
            margin_mode: { type: 'string', enum: ['hedging', 'netting'] },
          },
        },
      },
    },
    async (request, reply) => {
      const account = await broker.createAccount(request.body);
      return reply.status(201).send(broker.accountSnapshot(account.record.server, account.record.login));
    },
  );

  app.get<{ Params: AccountParams }>('/control/accounts/:server/:login', { schema: { params: accountParams } }, async (request) =>
    broker.accountSnapshot(request.params.server, request.params.login),
  );

  app.put<{ Params: AccountParams; Body: FaultSettings }>(
    '/control/accounts/:server/:login/faults',
    { schema: { params: accountParams, body: faultsBody } },
    async (request) => {
      broker.setFaults(request.params.server, request.params.login, request.body ?? {});
      return broker.getFaults(request.params.server, request.params.login);
    },
  );
  app.delete<{ Params: AccountParams }>(
    '/control/accounts/:server/:login/faults',
    { schema: { params: accountParams } },
    async (request) => {
      broker.setFaults(request.params.server, request.params.login, {});
      return {};
    },
  );

  app.post<{ Params: AccountParams; Body: Parameters<Broker['seedPosition']>[2] }>(
    '/control/accounts/:server/:login/positions',
    {
      schema: {
        params: accountParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['symbol', 'type', 'volume'],
          properties: {
            symbol: { type: 'string' },
            type: { type: 'string', enum: ['buy', 'sell'] },
            volume: { type: 'number', exclusiveMinimum: 0 },
            price: { type: 'number', exclusiveMinimum: 0 },
            sl: { type: 'number', minimum: 0 },
            tp: { type: 'number', minimum: 0 },
            magic: { type: 'integer', minimum: 0 },
            comment: { type: 'string', maxLength: 31 },
            held_days: { type: 'integer', minimum: 0, maximum: 3650 },
          },
        },
      },
    },
    async (request, reply) => reply.status(201).send(await broker.seedPosition(request.params.server, request.params.login, request.body)),
  );

  app.post<{ Params: AccountParams; Body: Parameters<Broker['seedOrder']>[2] }>(
    '/control/accounts/:server/:login/orders',
    {
      schema: {
        params: accountParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['symbol', 'type', 'volume', 'price'],
          properties: {
            symbol: { type: 'string' },
            type: { type: 'string', enum: ['buy_limit', 'sell_limit', 'buy_stop', 'sell_stop', 'buy_stop_limit', 'sell_stop_limit'] },
            volume: { type: 'number', exclusiveMinimum: 0 },
            price: { type: 'number', exclusiveMinimum: 0 },
            stop_limit_price: { type: 'number', exclusiveMinimum: 0 },
            magic: { type: 'integer', minimum: 0 },
            comment: { type: 'string', maxLength: 31 },
          },
        },
      },
    },
    async (request, reply) => reply.status(201).send(await broker.seedOrder(request.params.server, request.params.login, request.body)),
  );

  app.get<{ Params: AccountParams }>('/control/accounts/:server/:login/deals', { schema: { params: accountParams } }, async (request) => ({
    deals: broker.deals(request.params.server, request.params.login),
  }));
  app.get<{ Params: AccountParams }>(
    '/control/accounts/:server/:login/requests',
    { schema: { params: accountParams } },
    async (request) => ({ requests: broker.requests(request.params.server, request.params.login) }),
  );

  return app;
}
