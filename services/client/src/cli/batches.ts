import type { MtxClient } from '../client';
import type { AccountInfo, ClientSettings } from '../settings';
import type { CloseRequest, OrderBatchRequest } from '../types';
import { numberFlag, readJsonFile, UsageError, type Flags } from './context';

export interface ListedAccount {
  id: string;
  platform?: string;
  server?: string;
  symbol_suffix?: string;
  label?: string;
  status?: string;
  login?: string;
}

export function accountsFrom(listing: unknown): ListedAccount[] {
  if (Array.isArray(listing)) return listing as ListedAccount[];
  const wrapped = listing as { accounts?: ListedAccount[]; data?: ListedAccount[] } | undefined;
  return wrapped?.accounts ?? wrapped?.data ?? [];
}

/**
 * The accounts a batch addresses with their symbol suffixes: those named (or all), described by the API's
 * account list, completed from the local settings when the API does not report a suffix.
 */
export async function resolveAccounts(client: MtxClient, settings: ClientSettings, selection: string | undefined): Promise<AccountInfo[]> {
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

export async function placeBody(client: MtxClient, settings: ClientSettings, flags: Flags): Promise<OrderBatchRequest> {
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

export async function closeBody(client: MtxClient, settings: ClientSettings, flags: Flags): Promise<CloseRequest> {
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
