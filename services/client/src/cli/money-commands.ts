/** The wallet, top-up and subscription commands. */
import type { MtxClient } from '../client';
import { createProgress } from '../progress';
import { formatEurCents, renderDetails, renderTable } from '../table';
import { eurosToCents, timeoutMs, UsageError, type CliIo, type CommandContext, type Flags } from './context';
import { renderTopup, type TopupView } from './render';

async function followTopup(client: MtxClient, id: number, flags: Flags, io: CliIo): Promise<TopupView> {
  const progress = createProgress(io.stderr, { label: `top-up ${id}` });
  try {
    const topup = (await client.wallet.waitForTopup(id, {
      deadlineMs: timeoutMs(flags),
      onUpdate: (state) => {
        const view = state as TopupView;
        progress.update(`${view.status}, ${formatEurCents(view.credited_eur_cents)} of ${formatEurCents(view.amount_eur_cents)} credited`);
      },
    })) as TopupView;
    if (topup.status === 'paid') progress.succeed(`paid, ${formatEurCents(topup.credited_eur_cents)} credited`);
    else progress.fail(`${topup.status}, ${formatEurCents(topup.credited_eur_cents)} credited`);
    return topup;
  } catch (error) {
    progress.fail((error as Error).message);
    throw error;
  }
}

export async function wallet({ client, print }: CommandContext): Promise<number> {
  const wallet = await client.wallet.get();
  print(wallet, () => {
    const view = wallet as {
      balance_eur_cents: number;
      held_eur_cents?: number;
      upcoming_total_eur_cents: number;
      shortfall_eur_cents: number;
      covers_upcoming: boolean;
      upcoming: Array<{ when: string; amount_eur_cents: number; kind: string; label: string }>;
      pending_topups: Array<{
        id: number;
        status: string;
        amount_eur_cents: number;
        credited_eur_cents: number;
        asset_code: string;
        blockchain_code: string;
        expires_at: string;
      }>;
    };
    const details = renderDetails([
      ['balance', formatEurCents(view.balance_eur_cents)],
      ...(view.held_eur_cents ? ([['held over the cap', formatEurCents(view.held_eur_cents)]] as Array<[string, string]>) : []),
      ['owed in 30 days', formatEurCents(view.upcoming_total_eur_cents)],
      ['shortfall', formatEurCents(view.shortfall_eur_cents)],
      ['covers upcoming', view.covers_upcoming ? 'yes' : 'no'],
    ]);
    const upcoming = view.upcoming.length
      ? `\nupcoming charges\n${renderTable(
          [
            { header: 'WHEN', value: (item: (typeof view.upcoming)[number]) => item.when },
            { header: 'KIND', value: (item) => item.kind },
            { header: 'LABEL', value: (item) => item.label, maxWidth: 40 },
            { header: 'AMOUNT', value: (item) => formatEurCents(item.amount_eur_cents), align: 'right' },
          ],
          view.upcoming,
        )}`
      : '\nno charges due in the next 30 days\n';
    const pending = view.pending_topups.length
      ? `\npending top-ups\n${renderTable(
          [
            { header: 'ID', value: (item: (typeof view.pending_topups)[number]) => item.id },
            { header: 'STATUS', value: (item) => item.status },
            { header: 'AMOUNT', value: (item) => formatEurCents(item.amount_eur_cents), align: 'right' },
            { header: 'CREDITED', value: (item) => formatEurCents(item.credited_eur_cents), align: 'right' },
            { header: 'ASSET', value: (item) => `${item.asset_code}/${item.blockchain_code}` },
            { header: 'EXPIRES', value: (item) => item.expires_at },
          ],
          view.pending_topups,
        )}`
      : '';
    return `${details}${upcoming}${pending}`;
  });
  return 0;
}

export async function assets({ client, flags, print }: CommandContext): Promise<number> {
  const assets = await client.wallet.listAssets({ amount_eur_cents: eurosToCents(flags['amount-eur'], '--amount-eur') });
  print(assets, () =>
    renderTable(
      [
        { header: 'ASSET', value: (row: { asset_code: string }) => row.asset_code },
        { header: 'CHAIN', value: (row: { blockchain_code: string }) => row.blockchain_code },
        {
          header: 'NAME',
          value: (row: { asset_name: string; blockchain_name: string }) => `${row.asset_name} on ${row.blockchain_name}`,
          maxWidth: 40,
        },
        { header: 'AMOUNT', value: (row: { amount: string }) => row.amount, align: 'right' },
        { header: 'STABLE', value: (row: { is_stable: boolean }) => (row.is_stable ? 'yes' : 'no') },
        { header: 'MINIMUM', value: (row: { min_amount_eur_cents: number }) => formatEurCents(row.min_amount_eur_cents), align: 'right' },
      ],
      assets as Array<{
        asset_code: string;
        blockchain_code: string;
        asset_name: string;
        blockchain_name: string;
        amount: string;
        is_stable: boolean;
        min_amount_eur_cents: number;
      }>,
    ),
  );
  return 0;
}

export async function topupCreate({ client, flags, io, print }: CommandContext): Promise<number> {
  const amountEurCents = eurosToCents(flags['amount-eur'], '--amount-eur');
  let asset = flags.asset;
  let chain = flags.chain;
  if (!asset !== !chain) throw new UsageError('give both --asset and --chain, or neither');
  if (!asset || !chain) {
    const offered = (await client.wallet.listAssets({ amount_eur_cents: amountEurCents })) as Array<{
      asset_code: string;
      blockchain_code: string;
      is_stable: boolean;
    }>;
    const choice = offered.find((row) => row.is_stable) ?? offered[0];
    if (!choice) throw new UsageError('no asset is offered for this amount');
    asset = choice.asset_code;
    chain = choice.blockchain_code;
  }
  const topup = (await client.wallet.createTopup({
    amount_eur_cents: amountEurCents,
    asset_code: asset,
    blockchain_code: chain,
  })) as TopupView;
  print(
    topup,
    () => `${renderTopup(topup)}\nSend exactly that amount of that asset on that chain; the balance moves when the payment confirms.\n`,
  );
  if (flags.wait) {
    const settled = await followTopup(client, topup.id, flags, io);
    if (flags.json) print(settled, () => '');
    return settled.status === 'paid' ? 0 : 3;
  }
  return 0;
}

export async function topupShow({ client, flags, io, print, positionalId }: CommandContext): Promise<number> {
  const id = Number(positionalId('top-up id'));
  if (!Number.isInteger(id)) throw new UsageError('the top-up id is an integer');
  const topup = (flags.wait ? await followTopup(client, id, flags, io) : await client.wallet.getTopup(id)) as TopupView;
  print(topup, () => renderTopup(topup));
  return 0;
}

export async function topupPaySandbox({ client, settings, print, positionalId }: CommandContext): Promise<number> {
  const id = Number(positionalId('top-up id'));
  if (!settings.sandboxUrl) throw new UsageError('no sandbox address: set MTX_SANDBOX_URL or run `npm start`');
  const topup = (await client.wallet.getTopup(id)) as TopupView;
  const response = await fetch(`${settings.sandboxUrl.replace(/\/+$/, '')}/sandbox/deposits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      address: topup.deposit_address,
      asset_code: topup.asset_code,
      blockchain_code: topup.blockchain_code,
      amount: topup.deposit_amount,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new UsageError(`the sandbox refused the deposit (${response.status}): ${JSON.stringify(body)}`);
  print(
    body,
    () => `sandbox deposit sent for top-up ${id}: ${JSON.stringify(body)}\nfollow it with: npm run mtx -- topup:show ${id} --wait\n`,
  );
  return 0;
}

export async function subscription({ client, print }: CommandContext): Promise<number> {
  const subscription = await client.subscription.get();
  print(subscription, () => {
    const view = subscription as {
      plan: string;
      status: string;
      paid_access: boolean;
      billing_provider: string;
      cancel_at_period_end: boolean;
      seats: { total: number; used: number; bonus: number };
      seat_details: Array<{ id: string; paid_until: string; status: string; account_id: string | null; bonus?: boolean }>;
      current_period_end: string | null;
      grace_ends_at: string | null;
      wallet: {
        balance_eur_cents: number;
        next_charge_eur_cents: number | null;
        next_charge_at: string | null;
        covers_next_charge: boolean;
      } | null;
    };
    const details = renderDetails([
      ['plan', view.plan],
      ['status', view.status],
      ['paid access', view.paid_access ? 'yes' : 'no'],
      ['paid from', view.billing_provider],
      ['renews', view.cancel_at_period_end ? 'no (cancels at period end)' : 'yes'],
      ['seats', `${view.seats.used} used of ${view.seats.total} (${view.seats.bonus} bonus)`],
      ['period ends', view.current_period_end],
      ['grace ends', view.grace_ends_at ?? ''],
      ['balance', view.wallet ? formatEurCents(view.wallet.balance_eur_cents) : 'wallet off'],
      [
        'next charge',
        view.wallet?.next_charge_eur_cents != null
          ? `${formatEurCents(view.wallet.next_charge_eur_cents)} on ${view.wallet.next_charge_at}${view.wallet.covers_next_charge ? '' : ' (NOT covered)'}`
          : 'nothing owed',
      ],
    ]);
    const seats = view.seat_details.length
      ? `\n${renderTable(
          [
            { header: 'SEAT', value: (seat: (typeof view.seat_details)[number]) => seat.id },
            { header: 'STATUS', value: (seat) => seat.status },
            { header: 'PAID UNTIL', value: (seat) => seat.paid_until },
            { header: 'ACCOUNT', value: (seat) => seat.account_id ?? '(free slot)' },
            { header: 'BONUS', value: (seat) => (seat.bonus ? 'yes' : '') },
          ],
          view.seat_details,
        )}`
      : '';
    return `${details}${seats}`;
  });
  return 0;
}
