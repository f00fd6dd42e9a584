import { AppError } from '@mtx/shared/errors';
import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { ExecutionServiceDefinition } from '@mtx/shared/generated/proto/mtx/execution/v1/ExecutionService';
import type { Logger } from '@mtx/shared/logger';
import { accountView, type AccountRegistry } from '../app/accounts';
import type { BatchService } from '../app/batches';
import { listLimitDefault, listLimitMax } from '../app/batch-listing';
import type { HistoryReader } from '../app/history';
import type { Portfolio } from '../app/portfolio';
import { settingsMessage, type AccountSettingsService } from '../app/account-settings';

function requireCustomer(request: { customer_id?: string }): string {
  if (!request.customer_id) throw new AppError('invalid_request', 'customer_id is required', { param: 'customer_id' });
  return request.customer_id;
}

/** The fields of a proto message that were actually set (proto3 `optional` presence), nulls dropped. */
function setFields<T extends object>(message: T | null | undefined): T | undefined {
  if (!message) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) if (value !== undefined && value !== null && !key.startsWith('_')) out[key] = value;
  return out as T;
}

/** gRPC adapter of the execution service: transport only, every rule lives in the domain. */
export function createExecutionGrpcImplementation(
  {
    registry,
    batches,
    portfolio,
    history,
    settings,
  }: { registry: AccountRegistry; batches: BatchService; portfolio: Portfolio; history: HistoryReader; settings: AccountSettingsService },
  logger: Logger,
): grpc.UntypedServiceImplementation {
  return unaryHandlers<ExecutionServiceDefinition>(
    {
      CreateAccount: async (request) =>
        registry.create({
          customer_id: requireCustomer(request),
          platform: request.platform,
          server: request.server,
          login: request.login,
          password: request.password,
          label: request.label,
          bonus_seat: !!request.bonus_seat,
        }),
      ListAccounts: async (request) => ({ accounts: await registry.list(requireCustomer(request)) }),
      ListServers: async () => ({ servers: await registry.listServers() }),
      GetAccount: async (request) => accountView(await registry.get(requireCustomer(request), request.account_id)),
      DeleteAccount: async (request) => registry.delete(requireCustomer(request), request.account_id),
      SetAccountBillingStatus: async (request) => registry.setBillingStatus(requireCustomer(request), request.account_id, request.status),
      PlaceOrders: async (request) =>
        batches.placeOrders(requireCustomer(request), {
          defaults: setFields(request.defaults),
          orders: (request.orders ?? []).map((order) => ({
            account_id: order.account_id,
            fields: setFields(order.fields),
          })),
          ...(request.batch_id ? { batch_id: request.batch_id } : {}),
        }),
      CloseOrders: async (request) =>
        batches.closeOrders(requireCustomer(request), {
          defaults: setFields(request.defaults),
          accounts: (request.accounts ?? []).map((entry) => ({
            account_id: entry.account_id,
            fields: setFields(entry.fields),
            tickets: (entry.tickets ?? []).map(Number),
            has_tickets: !!entry.has_tickets,
          })),
          require_reachable: !!request.require_reachable,
          ...(request.batch_id ? { batch_id: request.batch_id } : {}),
        }),
      ModifyOrders: async (request) =>
        batches.modifyOrders(requireCustomer(request), {
          defaults: setFields(request.defaults),
          accounts: (request.accounts ?? []).map((entry) => ({
            account_id: entry.account_id,
            fields: setFields(entry.fields),
            tickets: (entry.tickets ?? []).map(Number),
            has_tickets: !!entry.has_tickets,
          })),
          change: setFields(request.change),
          ...(request.batch_id ? { batch_id: request.batch_id } : {}),
        }),
      ListHistory: async (request) => {
        if (request.kind !== 'deals' && request.kind !== 'orders')
          throw new AppError('invalid_request', 'kind must be deals or orders', { param: 'kind' });
        return history.list(requireCustomer(request), {
          kind: request.kind,
          account_ids: request.account_ids ?? [],
          ...(request.from_unix_ms != null ? { from_ms: Number(request.from_unix_ms) } : {}),
          ...(request.to_unix_ms != null ? { to_ms: Number(request.to_unix_ms) } : {}),
          ...(request.symbol ? { symbol: request.symbol } : {}),
          limit: request.limit,
          ...(request.starting_after ? { starting_after: request.starting_after } : {}),
        });
      },
      GetBatch: async (request) => batches.getBatch(requireCustomer(request), request.batch_id),
      ListBatches: async (request) => {
        const limit = request.limit || listLimitDefault;
        if (limit < 1 || limit > listLimitMax)
          throw new AppError('invalid_request', `limit must be between 1 and ${listLimitMax}`, { param: 'limit' });
        if (request.kind && request.kind !== 'orders' && request.kind !== 'close')
          throw new AppError('invalid_request', 'kind must be orders or close', { param: 'kind' });
        const page = await batches.listBatches(requireCustomer(request), {
          limit,
          ...(request.starting_after ? { starting_after: request.starting_after } : {}),
          ...(request.kind ? { kind: request.kind as 'orders' | 'close' } : {}),
          ...(request.created_gte_unix_ms != null ? { created_gte_ms: Number(request.created_gte_unix_ms) } : {}),
          ...(request.created_lt_unix_ms != null ? { created_lt_ms: Number(request.created_lt_unix_ms) } : {}),
        });
        return page;
      },
      ListPositions: async (request) =>
        portfolio.positions(requireCustomer(request), {
          account_ids: request.account_ids ?? [],
          ...setFields({
            symbol: request.symbol,
            symbol_match: request.symbol_match,
            side: request.side,
            kind: request.kind,
            magic: request.magic == null ? undefined : Number(request.magic),
          }),
        }),
      GetAccountState: async (request) => portfolio.state(requireCustomer(request), request.account_id),
      Reconcile: async (request) => batches.reconcile(request.batch_id || undefined),
      GetAccountSettings: async (request) => settingsMessage(await settings.get(requireCustomer(request), request.account_id)),
      UpdateAccountSettings: async (request) =>
        settingsMessage(
          await settings.update(requireCustomer(request), request.account_id, {
            ...setFields({
              max_volume_per_order: request.max_volume_per_order,
              max_open_positions: request.max_open_positions,
              max_total_volume: request.max_total_volume,
              trading_enabled: request.trading_enabled,
            }),
            ...(request.symbol_map ? { symbol_map: request.symbol_map.entries ?? {} } : {}),
            ...(request.allowed_symbols ? { allowed_symbols: request.allowed_symbols.symbols ?? [] } : {}),
            clear: request.clear ?? [],
          }),
        ),
    },
    logger,
  );
}
