import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { AccountSettings__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/AccountSettings';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { errorResponses, rateLimitHeaders } from './schemas';

/** GET and PATCH /v1/accounts/{account_id}/settings: an account's symbol map and pre-trade limits. */

const symbolName = { minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._#!+\\-/&$@]+$' };

const settingsFields = {
  symbol_map: Type.Record(Type.String(symbolName), Type.String(symbolName), {
    maxProperties: 200,
    description:
      'Names used in orders → the broker symbol on this account, e.g. `{"GOLD": "XAUUSD.xx"}`. A leg with `symbol_match: "base"` looks its symbol up here first (names compared case-insensitively). At most 200 entries.',
    example: { GOLD: 'XAUUSD.xx', EURUSD: 'EURUSD.xx' },
  }),
  max_volume_per_order: Type.Number({
    exclusiveMinimum: 0,
    maximum: 100000,
    'x-error-message': 'must be greater than 0 and at most 100000',
    description: 'Lots one leg may send. A leg over it is rejected (TRADE_RETCODE_LIMIT_VOLUME); a sized leg is held to it instead.',
    example: 1,
  }),
  max_open_positions: Type.Integer({
    minimum: 0,
    maximum: 100000,
    description:
      'Open positions the account may hold; a leg that would open one more is rejected (TRADE_RETCODE_LIMIT_POSITIONS). A pending order counts as the position it would open; on a netting account a leg on a symbol already held opens none.',
    example: 10,
  }),
  max_total_volume: Type.Number({
    exclusiveMinimum: 0,
    maximum: 100000,
    'x-error-message': 'must be greater than 0 and at most 100000',
    description:
      'Lots open on the account in all, its positions and the batch’s earlier legs included; a leg that would go over is rejected (TRADE_RETCODE_LIMIT_VOLUME).',
    example: 5,
  }),
  allowed_symbols: Type.Array(Type.String(symbolName), {
    maxItems: 500,
    uniqueItems: true,
    description:
      'When set, legs may trade only these symbols (the broker symbol, or the name the leg gave); others are rejected (TRADE_RETCODE_TRADE_DISABLED). `null` in a PATCH allows every symbol again.',
    example: ['EURUSD.xx', 'XAUUSD.xx'],
  }),
  trading_enabled: Type.Boolean({
    description:
      'false rejects every leg that opens risk (TRADE_RETCODE_TRADE_DISABLED) before anything is sent; closing and modifying stay allowed.',
    example: true,
  }),
};

const AccountSettings = Type.Object(
  {
    account_id: Type.String({ description: 'The account.' }),
    symbol_map: settingsFields.symbol_map,
    max_volume_per_order: Type.Union([settingsFields.max_volume_per_order, Type.Null()], { description: 'null: no limit.' }),
    max_open_positions: Type.Union([settingsFields.max_open_positions, Type.Null()], { description: 'null: no limit.' }),
    max_total_volume: Type.Union([settingsFields.max_total_volume, Type.Null()], { description: 'null: no limit.' }),
    allowed_symbols: Type.Union([settingsFields.allowed_symbols, Type.Null()], { description: 'null: every symbol is allowed.' }),
    trading_enabled: settingsFields.trading_enabled,
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Last change; null when never changed.' }),
  },
  { additionalProperties: false },
);

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const UpdateAccountSettingsBody = Type.Object(
  {
    symbol_map: nullable(settingsFields.symbol_map),
    max_volume_per_order: nullable(settingsFields.max_volume_per_order),
    max_open_positions: nullable(settingsFields.max_open_positions),
    max_total_volume: nullable(settingsFields.max_total_volume),
    allowed_symbols: nullable(settingsFields.allowed_symbols),
    trading_enabled: Type.Optional(settingsFields.trading_enabled),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'The fields to change; the others stay. `null` resets a field: no limit, an empty symbol map, every symbol allowed. The whole body is checked first: any bad field is 400 and nothing changes.',
  },
);

const settingNames = [
  'symbol_map',
  'max_volume_per_order',
  'max_open_positions',
  'max_total_volume',
  'allowed_symbols',
  'trading_enabled',
] as const;

function settingsOf(message: AccountSettings__Output): Static<typeof AccountSettings> {
  return {
    account_id: message.account_id,
    symbol_map: message.symbol_map ?? {},
    max_volume_per_order: message.max_volume_per_order ?? null,
    max_open_positions: message.max_open_positions ?? null,
    max_total_volume: message.max_total_volume ?? null,
    allowed_symbols: message.has_allowed_symbols ? (message.allowed_symbols ?? []) : null,
    trading_enabled: message.trading_enabled,
    updated_at: message.updated_at || null,
  };
}

const params = Type.Object({ account_id: Type.String({ minLength: 1, maxLength: 80 }) });

export async function registerAccountSettingsRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.GRPC_DEADLINE_MS;

  app.get(
    '/v1/accounts/:account_id/settings',
    {
      schema: {
        tags: ['accounts'],
        summary: "Read an account's settings",
        description:
          "The account's symbol map and pre-trade limits (POST /v1/orders applies them before anything is sent). A read-only key may read them. 404 for an unknown account or another customer's.",
        params,
        response: { 200: { ...AccountSettings, headers: rateLimitHeaders }, ...errorResponses(400, 404) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const { account_id } = request.params as Static<typeof params>;
      return settingsOf(
        await dependencies.clients.execution.call(
          'GetAccountSettings',
          { customer_id: principalOf(request).customer_id, account_id },
          { deadlineMs },
        ),
      );
    },
  );

  app.patch(
    '/v1/accounts/:account_id/settings',
    {
      schema: {
        tags: ['accounts'],
        summary: "Change an account's settings",
        description:
          "Changes the fields given in one update of the account; the others stay. Needs the full key (a read-only key gets 403). Any bad field is 400 `invalid_request` naming it (`param`), and nothing changes. 404 for an unknown account or another customer's. The next batch on any replica sees the change.",
        params,
        body: UpdateAccountSettingsBody,
        response: { 200: { ...AccountSettings, headers: rateLimitHeaders }, ...errorResponses(400, 403, 404) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const { account_id } = request.params as Static<typeof params>;
      const body = request.body as Record<string, unknown>;
      const clear = settingNames.filter((name) => body[name] === null);
      const given = (name: (typeof settingNames)[number]) => body[name] !== undefined && body[name] !== null;
      return settingsOf(
        await dependencies.clients.execution.call(
          'UpdateAccountSettings',
          {
            customer_id: principalOf(request).customer_id,
            account_id,
            ...(given('symbol_map') ? { symbol_map: { entries: body.symbol_map as Record<string, string> } } : {}),
            ...(given('max_volume_per_order') ? { max_volume_per_order: body.max_volume_per_order as number } : {}),
            ...(given('max_open_positions') ? { max_open_positions: body.max_open_positions as number } : {}),
            ...(given('max_total_volume') ? { max_total_volume: body.max_total_volume as number } : {}),
            ...(given('allowed_symbols') ? { allowed_symbols: { symbols: body.allowed_symbols as string[] } } : {}),
            ...(given('trading_enabled') ? { trading_enabled: body.trading_enabled as boolean } : {}),
            clear,
          },
          { deadlineMs },
        ),
      );
    },
  );
}
