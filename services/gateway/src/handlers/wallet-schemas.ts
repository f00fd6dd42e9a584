import { Type, type Static } from '@sinclair/typebox';

/** GET /v1/wallet's answer and its parts: the response schemas, and the type the gateway's read model keeps. */

export const Timestamp = (description: string, example: string) => Type.String({ format: 'date-time', description, example });
export const Cents = (description: string, example: number) => Type.Integer({ description, example });

export const TopupStatus = Type.Union([Type.Literal('pending'), Type.Literal('partial'), Type.Literal('paid'), Type.Literal('failed')], {
  description:
    '`pending`: awaiting coin (credited 0). `partial`: less than the amount has arrived and been credited. `paid`: the amount (or more) has been credited. `failed`: the quote expired with nothing received; coin that still arrives is credited at the market rate and moves it to `partial` or `paid`.',
  example: 'pending',
});

export const PendingTopup = Type.Object(
  {
    id: Type.Integer({ description: 'Top-up identifier.', example: 1042 }),
    status: TopupStatus,
    amount_eur_cents: Cents('Requested size.', 5000),
    credited_eur_cents: Cents('Credited so far.', 0),
    asset_code: Type.String({ description: 'Asset to send.', example: 'USDT' }),
    blockchain_code: Type.String({ description: 'Chain to send on.', example: 'TRON' }),
    expires_at: Timestamp('End of the quote window.', '2027-03-01T10:30:00.000Z'),
  },
  { additionalProperties: false },
);

export const UpcomingItem = Type.Object(
  {
    when: Timestamp('Due date of the charge.', '2027-03-17T09:30:00.000Z'),
    amount_eur_cents: Cents('Amount.', 1200),
    kind: Type.Union([Type.Literal('seat'), Type.Literal('server')], { description: 'Kind of charge.', example: 'seat' }),
    label: Type.String({ description: 'The account or server concerned.', example: 'MT5 live 7Hk2' }),
  },
  { additionalProperties: false },
);

export const Wallet = Type.Object(
  {
    balance_eur_cents: Cents('Current balance (at most 100000).', 3600),
    held_eur_cents: Cents(
      'Money received beyond the EUR 1,000 cap: kept, never lost, and moved into the balance (oldest first) as soon as there is room.',
      0,
    ),
    pending_topups: Type.Array(PendingTopup, {
      description: 'Top-ups asked for but not yet landed: pending ones, and partial ones whose quote window is still open.',
    }),
    upcoming: Type.Array(UpcomingItem, {
      description:
        'Charges the balance owes over the next 30 days, seats and private servers together, by due date. Only occupied seats appear.',
    }),
    upcoming_total_eur_cents: Cents('Sum of the upcoming amounts.', 2400),
    shortfall_eur_cents: Cents('How much upcoming exceeds the balance; 0 when covered.', 0),
    covers_upcoming: Type.Boolean({ description: 'Whether the balance covers all upcoming charges.', example: true }),
  },
  { additionalProperties: false },
);

/** The body of GET /v1/wallet, as composed and as the gateway's read model keeps it. */
export type WalletAnswer = Static<typeof Wallet>;
