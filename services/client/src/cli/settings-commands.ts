/** `accounts:settings`: an account's symbol map and pre-trade limits, read or changed. */
import type { AccountSettingsUpdate } from '../types';
import { renderDetails } from '../table';
import { type CommandContext, type Flags, numberFlag, readJsonFile, UsageError } from './context';

/** `none` resets a setting (JSON null); anything else is the new value. */
function orNone<T>(text: string | undefined, parse: (text: string) => T): T | null | undefined {
  if (text === undefined) return undefined;
  return text === 'none' ? null : parse(text);
}

function symbolMapFlag(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const [name, symbol, ...rest] = pair.split('=').map((part) => part.trim());
    if (!name || !symbol || rest.length > 0) throw new UsageError('--symbol-map takes NAME=SYMBOL pairs separated by commas, or none');
    map[name] = symbol;
  }
  return map;
}

/** The change the flags (or --file, the PATCH body as written) describe; undefined when they describe none. */
function changeOf(flags: Flags): AccountSettingsUpdate | undefined {
  if (flags.file) return readJsonFile(flags.file) as AccountSettingsUpdate;
  const change: Record<string, unknown> = {
    symbol_map: orNone(flags['symbol-map'], symbolMapFlag),
    max_volume_per_order: orNone(flags['max-volume-per-order'], (text) => numberFlag(text, '--max-volume-per-order')),
    max_open_positions: orNone(flags['max-open-positions'], (text) => numberFlag(text, '--max-open-positions')),
    max_total_volume: orNone(flags['max-total-volume'], (text) => numberFlag(text, '--max-total-volume')),
    allowed_symbols: orNone(flags['allowed-symbols'], (text) => text.split(',').map((symbol) => symbol.trim())),
  };
  if (flags['trading-enabled'] !== undefined) {
    if (flags['trading-enabled'] !== 'true' && flags['trading-enabled'] !== 'false')
      throw new UsageError('--trading-enabled must be true or false');
    change.trading_enabled = flags['trading-enabled'] === 'true';
  }
  for (const [name, value] of Object.entries(change)) if (value === undefined) delete change[name];
  return Object.keys(change).length > 0 ? (change as AccountSettingsUpdate) : undefined;
}

export async function accountSettings({ client, flags, print, positionalId }: CommandContext): Promise<number> {
  const accountId = positionalId('account id');
  const change = changeOf(flags);
  const settings = change ? await client.accounts.settings.update(accountId, change) : await client.accounts.settings.get(accountId);
  const limit = (value: number | null) => (value === null ? 'none' : value);
  print(settings, () =>
    renderDetails([
      ['account', settings.account_id],
      ['trading enabled', settings.trading_enabled ? 'yes' : 'no (opening legs are refused; closing is allowed)'],
      [
        'symbol map',
        Object.keys(settings.symbol_map).length === 0
          ? 'none'
          : Object.entries(settings.symbol_map)
              .map(([name, symbol]) => `${name} → ${symbol}`)
              .join(', '),
      ],
      ['max volume per order', limit(settings.max_volume_per_order)],
      ['max open positions', limit(settings.max_open_positions)],
      ['max total volume', limit(settings.max_total_volume)],
      ['allowed symbols', settings.allowed_symbols === null ? 'all' : settings.allowed_symbols.join(', ') || 'none'],
      ['updated', settings.updated_at],
    ]),
  );
  return 0;
}
