import { Type } from '@sinclair/typebox';

/**
 * The order fields of the pre-trade rules (docs/architecture.md, "Pre-trade rules"): sizing, symbol resolution and
 * the margin check, each settable per leg or in defaults; and what a sized leg reports.
 */

export const deskOrderFieldProperties = {
  sizing: Type.Object(
    {
      mode: Type.Union([Type.Literal('equity'), Type.Literal('balance'), Type.Literal('risk')], {
        description:
          '`equity` or `balance`: `lots_per_1000` lots per 1,000 units of the account currency. `risk`: the volume whose loss at the leg’s `stop_loss` is `percent` % of equity, from the symbol’s tick value and tick size (a stop_loss is required).',
      }),
      lots_per_1000: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 1000,
          'x-error-message': 'must be greater than 0 and at most 1000',
          description: 'equity and balance modes.',
        }),
      ),
      percent: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 100,
          'x-error-message': 'must be greater than 0 and at most 100',
          description: 'risk mode.',
        }),
      ),
    },
    {
      additionalProperties: false,
      description:
        "Instead of `volume` (giving both on one leg, or both in defaults, is 400): the volume is computed from the account's figures as its terminal reports them, rounded DOWN to the symbol's volume step and held to its maximum and to the account's max_volume_per_order. Below the symbol's minimum the leg is rejected (TRADE_RETCODE_INVALID_VOLUME) naming the computed volume and the minimum, and nothing is sent. A leg's own volume or sizing replaces the other in defaults.",
      example: { mode: 'risk', percent: 1 },
    },
  ),
  symbol_match: Type.Union([Type.Literal('exact'), Type.Literal('base')], {
    description:
      "`exact` (default): `symbol` is sent as given. `base`: `symbol` is a plain name resolved per account: the account's symbol_map first (GET /v1/accounts/{account_id}/settings), else the one broker symbol the close selector's `base` rule accepts (EURUSD → EURUSD.xx). None, or more than one, rejects the leg naming the candidates, and nothing is sent. The result's `symbol` is the broker symbol used.",
  }),
  check_margin: Type.Boolean({
    description:
      'true: before sending, the terminal values the margin the order needs (OrderCalcMargin/OrderCheck); a leg that would leave negative free margin (the batch’s earlier checked legs on the account counted) is rejected with TRADE_RETCODE_NO_MONEY and nothing is sent.',
  }),
};

export const LegSizingResult = Type.Object(
  {
    mode: Type.String({ description: '`equity`, `balance` or `risk`.', example: 'equity' }),
    equity: Type.Optional(Type.Number({ description: 'Equity used (equity and risk modes), account currency.' })),
    balance: Type.Optional(Type.Number({ description: 'Balance used (balance mode), account currency.' })),
    computed_volume: Type.Number({ description: 'Lots computed, before rounding to the step and the limits; `volume` is what was sent.' }),
  },
  { additionalProperties: false, description: 'Present on sized legs: what the volume was computed from.' },
);
