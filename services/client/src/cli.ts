/**
 * Operator CLI over the public API: `npm run mtx -- <command> [flags]`.
 * Reads MTX_BASE_URL and MTX_API_KEY (else the .data/dev.json that `npm start` writes).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { MtxClient, batchIsSettled } from './client';
import { ApiConnectionError, ApiError } from './errors';
import { createProgress } from './progress';
import { SettingsError, loadSettings, type AccountInfo, type ClientSettings } from './settings';
import { formatEurCents, renderDetails, renderTable } from './table';
import type { CloseRequest, OrderBatchRequest } from './types';

export const usage = `usage: npm run mtx -- <command> [flags]

commands:
  wallet                                   balance, pending top-ups and the charges owed over 30 days
  assets --amount-eur <EUR>                what a top-up of this size can be paid in
  topup:create --amount-eur <EUR> [--asset <code> --chain <code>] [--wait]
                                           create a top-up (default: the first stablecoin offered)
  topup:show <id> [--wait]                 a top-up's status; --wait follows it until paid or failed
  topup:pay-sandbox <id>                   pay a top-up through the local crypto sandbox (npm start only)
  subscription                             plan, seats and what the balance owes next
  accounts                                 trading accounts
  orders:place --file <batch.json>         place a batch as written in the file (the POST /v1/orders body), or:
  orders:place --accounts <ids|all> (--symbol <exact> | --base-symbol <base>) --operation <op> --volume <lots>
               [--price <p>] [--stop-loss <p>] [--take-profit <p>] [--comment <text>]
                                           --base-symbol appends each account's broker suffix (EURUSD → EURUSD.xx)
  orders:close --file <close.json>         close as written in the file (the POST /v1/orders/close body), or:
  orders:close --accounts <ids|all> --symbol <symbol|*> [--match exact|base] [--side long|short|any]
               [--kind position|pending|any] [--volume <lots>]
  batch:show <batch_id> [--wait]           a stored batch; --wait follows it until no outcome is unknown

flags for every command:
  --json                 print the API's JSON instead of tables
  --base-url <url>       default MTX_BASE_URL, else base_url from .data/dev.json
  --key <key>            default MTX_API_KEY, else full_key from .data/dev.json
  --idempotency-key <k>  for orders:place and orders:close (default: a fresh key, reused on retries)
  --timeout-seconds <s>  how long --wait follows (default 120)

exit status: 0 done; 1 error; 3 a batch came back with legs or accounts that did not succeed.`;

const options = {
  json: { type: 'boolean' },
  wait: { type: 'boolean' },
  'base-url': { type: 'string' },
  key: { type: 'string' },
  'amount-eur': { type: 'string' },
  asset: { type: 'string' },
  chain: { type: 'string' },
  file: { type: 'string' },
  accounts: { type: 'string' },
  symbol: { type: 'string' },
  'base-symbol': { type: 'string' },
  operation: { type: 'string' },
  volume: { type: 'string' },
  price: { type: 'string' },
  'stop-loss': { type: 'string' },
  'take-profit': { type: 'string' },
  comment: { type: 'string' },
  match: { type: 'string' },
  side: { type: 'string' },
  kind: { type: 'string' },
  'idempotency-key': { type: 'string' },
  'timeout-seconds': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WriteStream;
  environment: NodeJS.ProcessEnv;
}

/** A failure the user can fix from the message alone; printed without a stack. */
class UsageError extends Error {}

/** Outcomes that count as success for the exit status. */
const successfulLegStatuses = new Set(['filled', 'placed']);
const successfulCloseStatuses = new Set(['closed', 'nothing_matched']);

function eurosToCents(text: string | undefined, flag: string): number {
  if (text === undefined) throw new UsageError(`${flag} is required`);
  if (!/^\d+(\.\d{1,2})?$/.test(text)) throw new UsageError(`${flag} must be an amount in EUR such as 25 or 25.50`);
  const [euros, cents = ''] = text.split('.');
  return Number(euros) * 100 + Number(cents.padEnd(2, '0'));
}

function numberFlag(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UsageError(`${flag} must be a number`);
  return value;
}

function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

function timeoutMs(flags: Flags): number {
  return (numberFlag(flags['timeout-seconds'], '--timeout-seconds') ?? 120) * 1000;
}

interface ListedAccount {
  id: string;
  platform?: string;
  server?: string;
  symbol_suffix?: string;
  label?: string;
  status?: string;
  login?: string;
}

function accountsFrom(listing: unknown): ListedAccount[] {
  if (Array.isArray(listing)) return listing as ListedAccount[];
  const wrapped = listing as { accounts?: ListedAccount[]; data?: ListedAccount[] } | undefined;
  return wrapped?.accounts ?? wrapped?.data ?? [];
}

/**
 * The accounts a batch addresses with their symbol suffixes: those named (or all), described by the API's
 * account list, completed from the local settings when the API does not report a suffix.
 */
async function resolveAccounts(client: MtxClient, settings: ClientSettings, selection: string | undefined): Promise<AccountInfo[]> {
  if (!selection) throw new UsageError('--accounts is required (comma-separated ids, or all)');
  const known = new Map<string, AccountInfo>(settings.accounts.map((account) => [account.id, account]));
  for (const account of accountsFrom(await client.accounts.list())) {
    const local = known.get(account.id);
    known.set(account.id, {
      id: account.id,
      platform: (account.platform ?? local?.platform) as AccountInfo['platform'],
      server: account.server ?? local?.server,
      symbol_suffix: account.symbol_suffix ?? local?.symbol_suffix,
    });
  }
  if (selection === 'all') return [...known.values()];
  return selection
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean)
    .map((id) => known.get(id) ?? { id, platform: undefined as unknown as AccountInfo['platform'] });
}

async function placeBody(client: MtxClient, settings: ClientSettings, flags: Flags): Promise<OrderBatchRequest> {
  if (flags.file) return readJsonFile(flags.file) as OrderBatchRequest;
  if (!flags.symbol === !flags['base-symbol']) throw new UsageError('give exactly one of --symbol and --base-symbol');
  if (!flags.operation) throw new UsageError('--operation is required (buy, sell, buyLimit, …)');
  const volume = numberFlag(flags.volume, '--volume');
  if (volume === undefined) throw new UsageError('--volume is required (lots)');
  const accounts = await resolveAccounts(client, settings, flags.accounts);
  if (accounts.length === 0) throw new UsageError('no accounts to trade on');
  const defaults: Record<string, unknown> = { operation: flags.operation, volume };
  if (flags.symbol) defaults.symbol = flags.symbol;
  const price = numberFlag(flags.price, '--price');
  const stopLoss = numberFlag(flags['stop-loss'], '--stop-loss');
  const takeProfit = numberFlag(flags['take-profit'], '--take-profit');
  if (price !== undefined) defaults.price = price;
  if (stopLoss !== undefined) defaults.stop_loss = stopLoss;
  if (takeProfit !== undefined) defaults.take_profit = takeProfit;
  if (flags.comment !== undefined) defaults.comment = flags.comment;
  const orders = accounts.map((account) => {
    if (!flags['base-symbol']) return { account_id: account.id };
    if (account.symbol_suffix === undefined)
      throw new UsageError(
        `the symbol suffix of account ${account.id} is unknown; use --symbol per batch or a --file with a symbol per leg`,
      );
    return { account_id: account.id, symbol: `${flags['base-symbol']}${account.symbol_suffix}` };
  });
  return { defaults, orders } as OrderBatchRequest;
}

async function closeBody(client: MtxClient, settings: ClientSettings, flags: Flags): Promise<CloseRequest> {
  if (flags.file) return readJsonFile(flags.file) as CloseRequest;
  if (!flags.symbol) throw new UsageError('--symbol is required (a symbol, or * for every symbol)');
  const accounts = await resolveAccounts(client, settings, flags.accounts);
  if (accounts.length === 0) throw new UsageError('no accounts to close on');
  const defaults: Record<string, unknown> = { symbol: flags.symbol };
  if (flags.match) defaults.symbol_match = flags.match;
  if (flags.side) defaults.side = flags.side;
  if (flags.kind) defaults.kind = flags.kind;
  const volume = numberFlag(flags.volume, '--volume');
  if (volume !== undefined) defaults.volume = volume;
  return { defaults, accounts: accounts.map((account) => ({ account_id: account.id })) } as CloseRequest;
}

interface LegResult {
  account_id: string;
  platform?: string;
  symbol?: string;
  operation?: string;
  volume?: number;
  status: string;
  order?: number;
  price?: number;
  retcode?: number;
  retcode_description?: string;
  message?: string;
  latency_ms?: number;
}

interface AccountCloseResult {
  account_id: string;
  platform?: string;
  status: string;
  matched?: number;
  closed?: number;
  message?: string;
  latency_ms?: number;
  results?: Array<{
    ticket: number;
    symbol?: string;
    type?: string;
    kind?: string;
    volume?: number;
    status: string;
    retcode_description?: string;
    price?: number;
  }>;
}

function renderLegs(batch: {
  batch_id?: string;
  idempotent_replay?: boolean;
  summary?: Record<string, number>;
  results?: LegResult[];
}): string {
  const table = renderTable<LegResult>(
    [
      { header: 'ACCOUNT', value: (leg) => leg.account_id },
      { header: 'PLATFORM', value: (leg) => leg.platform },
      { header: 'SYMBOL', value: (leg) => leg.symbol },
      { header: 'OPERATION', value: (leg) => leg.operation },
      { header: 'VOLUME', value: (leg) => leg.volume, align: 'right' },
      { header: 'STATUS', value: (leg) => leg.status },
      { header: 'PRICE', value: (leg) => leg.price, align: 'right' },
      { header: 'ORDER', value: (leg) => (leg.order ? leg.order : undefined), align: 'right' },
      { header: 'RESULT', value: (leg) => leg.retcode_description },
      { header: 'MS', value: (leg) => leg.latency_ms, align: 'right' },
      { header: 'MESSAGE', value: (leg) => leg.message, maxWidth: 48 },
    ],
    batch.results ?? [],
  );
  const summary = Object.entries(batch.summary ?? {})
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  return `batch ${batch.batch_id ?? '?'}${batch.idempotent_replay ? ' (replayed: nothing was sent again)' : ''}\n${table}${summary ? `summary: ${summary}\n` : ''}`;
}

function renderCloses(batch: {
  batch_id?: string;
  idempotent_replay?: boolean;
  summary?: Record<string, number>;
  results?: AccountCloseResult[];
}): string {
  const accounts = renderTable<AccountCloseResult>(
    [
      { header: 'ACCOUNT', value: (account) => account.account_id },
      { header: 'PLATFORM', value: (account) => account.platform },
      { header: 'STATUS', value: (account) => account.status },
      { header: 'MATCHED', value: (account) => account.matched, align: 'right' },
      { header: 'CLOSED', value: (account) => account.closed, align: 'right' },
      { header: 'MS', value: (account) => account.latency_ms, align: 'right' },
      { header: 'MESSAGE', value: (account) => account.message, maxWidth: 48 },
    ],
    batch.results ?? [],
  );
  const tickets = (batch.results ?? []).flatMap((account) =>
    (account.results ?? []).map((ticket) => ({ account_id: account.account_id, ...ticket })),
  );
  const ticketTable = tickets.length
    ? `\n${renderTable(
        [
          { header: 'ACCOUNT', value: (ticket: (typeof tickets)[number]) => ticket.account_id },
          { header: 'TICKET', value: (ticket) => ticket.ticket, align: 'right' },
          { header: 'SYMBOL', value: (ticket) => ticket.symbol },
          { header: 'TYPE', value: (ticket) => ticket.type },
          { header: 'KIND', value: (ticket) => ticket.kind },
          { header: 'VOLUME', value: (ticket) => ticket.volume, align: 'right' },
          { header: 'STATUS', value: (ticket) => ticket.status },
          { header: 'PRICE', value: (ticket) => ticket.price, align: 'right' },
          { header: 'RESULT', value: (ticket) => ticket.retcode_description },
        ],
        tickets,
      )}`
    : '';
  const summary = Object.entries(batch.summary ?? {})
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  return `close batch ${batch.batch_id ?? '?'}${batch.idempotent_replay ? ' (replayed: nothing was sent again)' : ''}\n${accounts}${ticketTable}${summary ? `summary: ${summary}\n` : ''}`;
}

interface TopupView {
  id: number;
  status: string;
  amount_eur_cents: number;
  credited_eur_cents: number;
  deposit_address?: string;
  deposit_amount?: string;
  deposit_amount_decimal?: string;
  asset_code: string;
  blockchain_code: string;
  expires_at: string;
}

function renderTopup(topup: TopupView): string {
  return renderDetails([
    ['top-up', topup.id],
    ['status', topup.status],
    ['amount', formatEurCents(topup.amount_eur_cents)],
    ['credited', formatEurCents(topup.credited_eur_cents)],
    [
      'send',
      topup.deposit_amount_decimal
        ? `${topup.deposit_amount_decimal} ${topup.asset_code} on ${topup.blockchain_code}`
        : `${topup.asset_code} on ${topup.blockchain_code}`,
    ],
    ['to address', topup.deposit_address],
    ['quote expires', topup.expires_at],
  ]);
}

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

/** Runs one command; returns the exit status. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const { values: flags, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (!command || flags.help || command === 'help') {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  const environment = { ...io.environment };
  if (flags['base-url']) environment.MTX_BASE_URL = flags['base-url'];
  if (flags.key) environment.MTX_API_KEY = flags.key;
  const settings = loadSettings(environment);
  const client = new MtxClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    onRetry: (event) =>
      io.stderr.write(`retrying ${event.method} ${event.path} in ${(event.delayMs / 1000).toFixed(1)} s (${event.reason})\n`),
  });
  const print = (json: unknown, text: () => string) => io.stdout.write(flags.json ? `${JSON.stringify(json, null, 2)}\n` : text());
  const positionalId = (name: string) => {
    const value = rest[0];
    if (!value) throw new UsageError(`${command} needs the ${name}`);
    return value;
  };

  switch (command) {
    case 'wallet': {
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
    case 'assets': {
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
          ],
          assets as Array<{
            asset_code: string;
            blockchain_code: string;
            asset_name: string;
            blockchain_name: string;
            amount: string;
            is_stable: boolean;
          }>,
        ),
      );
      return 0;
    }
    case 'topup:create': {
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
    case 'topup:show': {
      const id = Number(positionalId('top-up id'));
      if (!Number.isInteger(id)) throw new UsageError('the top-up id is an integer');
      const topup = (flags.wait ? await followTopup(client, id, flags, io) : await client.wallet.getTopup(id)) as TopupView;
      print(topup, () => renderTopup(topup));
      return 0;
    }
    case 'topup:pay-sandbox': {
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
    case 'subscription': {
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
    case 'accounts': {
      const listing = await client.accounts.list();
      print(listing, () => {
        const accounts = accountsFrom(listing);
        if (accounts.length === 0) return 'no accounts\n';
        return renderTable(
          [
            { header: 'ACCOUNT', value: (account: ListedAccount) => account.id },
            { header: 'PLATFORM', value: (account) => account.platform },
            { header: 'SERVER', value: (account) => account.server },
            { header: 'LOGIN', value: (account) => account.login },
            { header: 'SUFFIX', value: (account) => account.symbol_suffix },
            { header: 'LABEL', value: (account) => account.label, maxWidth: 32 },
            { header: 'STATUS', value: (account) => account.status },
          ],
          accounts,
        );
      });
      return 0;
    }
    case 'orders:place': {
      const body = await placeBody(client, settings, flags);
      const legs = (body as { orders?: unknown[] }).orders?.length ?? 0;
      const progress = createProgress(io.stderr, { label: 'orders' });
      progress.update(`placing ${legs} leg${legs === 1 ? '' : 's'}`);
      let batch: { batch_id: string; summary?: Record<string, number>; results?: LegResult[] };
      try {
        batch = (await client.orders.place(body, { idempotencyKey: flags['idempotency-key'] })) as typeof batch;
      } catch (error) {
        progress.fail('not placed');
        throw error;
      }
      progress.succeed(
        `batch ${batch.batch_id}: ${Object.entries(batch.summary ?? {})
          .map(([name, count]) => `${name} ${count}`)
          .join(', ')}`,
      );
      print(batch, () => renderLegs(batch));
      return (batch.results ?? []).every((leg) => successfulLegStatuses.has(leg.status)) ? 0 : 3;
    }
    case 'orders:close': {
      const body = await closeBody(client, settings, flags);
      const accounts = (body as { accounts?: unknown[] }).accounts?.length ?? 0;
      const progress = createProgress(io.stderr, { label: 'close' });
      progress.update(`closing on ${accounts} account${accounts === 1 ? '' : 's'}`);
      let batch: { batch_id: string; summary?: Record<string, number>; results?: AccountCloseResult[] };
      try {
        batch = (await client.orders.close(body, { idempotencyKey: flags['idempotency-key'] })) as typeof batch;
      } catch (error) {
        progress.fail('not closed');
        throw error;
      }
      progress.succeed(
        `batch ${batch.batch_id}: ${Object.entries(batch.summary ?? {})
          .map(([name, count]) => `${name} ${count}`)
          .join(', ')}`,
      );
      print(batch, () => renderCloses(batch));
      return (batch.results ?? []).every((account) => successfulCloseStatuses.has(account.status)) ? 0 : 3;
    }
    case 'batch:show': {
      const batchId = positionalId('batch id');
      let batch: unknown;
      if (flags.wait) {
        const progress = createProgress(io.stderr, { label: `batch ${batchId}` });
        try {
          batch = await client.orders.waitForBatch(batchId, {
            deadlineMs: timeoutMs(flags),
            onUpdate: (state) => {
              const unknown = ((state as unknown as { results?: Array<{ status?: string }> }).results ?? []).filter(
                (result) => result.status === 'unknown',
              ).length;
              progress.update(
                batchIsSettled(state)
                  ? 'settled'
                  : unknown
                    ? `${unknown} outcome${unknown === 1 ? '' : 's'} still unknown`
                    : 'waiting for late replies',
              );
            },
          });
          progress.succeed('every outcome known');
        } catch (error) {
          progress.fail((error as Error).message);
          throw error;
        }
      } else {
        batch = await client.orders.getBatch(batchId);
      }
      const isClose = (batch as { kind?: string }).kind === 'close';
      print(batch, () =>
        isClose ? renderCloses(batch as Parameters<typeof renderCloses>[0]) : renderLegs(batch as Parameters<typeof renderLegs>[0]),
      );
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${command}\n\n${usage}`);
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  if (error instanceof ApiConnectionError || error instanceof UsageError || error instanceof SettingsError) return error.message;
  if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) return `${(error as Error).message}\n\n${usage}`;
  return (error as Error).stack ?? String(error);
}

if (require.main === module) {
  runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, environment: process.env }).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      process.stderr.write(`mtx: ${describeFailure(error)}\n`);
      process.exitCode = 1;
    },
  );
}
