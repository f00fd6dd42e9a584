import { AppError } from '@mtx/shared/errors';

/**
 * An account's pre-trade settings (docs/architecture.md, "Pre-trade rules"): its symbol map and its limits, as
 * stored in the account's document and as a change to them is checked, all or nothing, before anything is written.
 * Pure.
 */

/** Stored with the account. The symbol map is a list of pairs: a broker symbol may hold a `.`, which a field name may not. */
export interface StoredAccountSettings {
  symbol_map?: Array<{ name: string; symbol: string }>;
  max_volume_per_order?: number;
  max_open_positions?: number;
  max_total_volume?: number;
  /** Absent: every symbol is allowed. */
  allowed_symbols?: string[];
  trading_enabled?: boolean;
  updated_at?: Date;
}

export interface AccountSettings {
  symbol_map: Record<string, string>;
  max_volume_per_order?: number;
  max_open_positions?: number;
  max_total_volume?: number;
  allowed_symbols?: string[];
  trading_enabled: boolean;
  updated_at?: Date;
}

export const settingNames = [
  'symbol_map',
  'max_volume_per_order',
  'max_open_positions',
  'max_total_volume',
  'allowed_symbols',
  'trading_enabled',
] as const;
export type SettingName = (typeof settingNames)[number];

export const symbolMapEntriesMax = 200;
export const allowedSymbolsMax = 500;
const symbolLengthMax = 64;
const volumeLimitMax = 100_000;
const positionsLimitMax = 100_000;
/** What a symbol name may hold: what brokers use in names and suffixes, nothing that could be read as a pattern. */
const symbolName = /^[A-Za-z0-9._#!+\-/&$@]+$/;

export function settingsOf(stored: StoredAccountSettings | undefined): AccountSettings {
  const settings: AccountSettings = {
    symbol_map: Object.fromEntries((stored?.symbol_map ?? []).map((entry) => [entry.name, entry.symbol])),
    trading_enabled: stored?.trading_enabled ?? true,
  };
  if (stored?.max_volume_per_order !== undefined) settings.max_volume_per_order = stored.max_volume_per_order;
  if (stored?.max_open_positions !== undefined) settings.max_open_positions = stored.max_open_positions;
  if (stored?.max_total_volume !== undefined) settings.max_total_volume = stored.max_total_volume;
  if (stored?.allowed_symbols !== undefined) settings.allowed_symbols = stored.allowed_symbols;
  if (stored?.updated_at !== undefined) settings.updated_at = stored.updated_at;
  return settings;
}

/** A change as the API gives it: a value replaces the stored one; `clear` resets a field to its default. */
export interface SettingsChangeInput {
  symbol_map?: Record<string, unknown>;
  max_volume_per_order?: unknown;
  max_open_positions?: unknown;
  max_total_volume?: unknown;
  allowed_symbols?: unknown;
  trading_enabled?: unknown;
  clear?: string[];
}

/** What one update writes: dotted `$set` and `$unset` paths under `settings`, so two changes of different fields never undo each other. */
export interface SettingsUpdate {
  set: Partial<Record<`settings.${SettingName}`, unknown>>;
  unset: Array<`settings.${SettingName}`>;
}

function invalid(message: string, param: string): AppError {
  return new AppError('invalid_request', message, { param });
}

function checkSymbol(value: unknown, param: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > symbolLengthMax || !symbolName.test(value))
    throw invalid(`${param} must be a symbol name of 1 to ${symbolLengthMax} letters, digits or . _ - # ! + / & $ @`, param);
  return value;
}

function checkVolumeLimit(value: unknown, param: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > volumeLimitMax)
    throw invalid(`${param} must be a number of lots greater than 0 and at most ${volumeLimitMax}`, param);
  return value;
}

/** Checks a change in full and says what to write; the first problem is a 400 naming the field, and nothing is written. */
export function settingsUpdateOf(input: SettingsChangeInput, now: Date): SettingsUpdate {
  const update: SettingsUpdate = { set: {}, unset: [] };
  const clear = input.clear ?? [];
  const given = settingNames.filter((name) => input[name] !== undefined);
  for (const name of clear) {
    if (!(settingNames as readonly string[]).includes(name))
      throw invalid(`${name} is not a setting; settings are ${settingNames.join(', ')}`, name);
    if (given.includes(name as SettingName)) throw invalid(`${name} is both given and cleared; give it once`, name);
  }
  if (given.length === 0 && clear.length === 0) throw invalid(`give at least one of ${settingNames.join(', ')}`, 'settings');

  if (input.symbol_map !== undefined) {
    const map = input.symbol_map;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) throw invalid('symbol_map must be an object', 'symbol_map');
    const entries = Object.entries(map);
    if (entries.length > symbolMapEntriesMax)
      throw invalid(`symbol_map has ${entries.length} entries; at most ${symbolMapEntriesMax}`, 'symbol_map');
    const seen = new Set<string>();
    const pairs = entries.map(([name, symbol]) => {
      checkSymbol(name, `symbol_map (the name ${JSON.stringify(name.slice(0, 80))})`);
      // Names are looked up case-insensitively, so two that differ only in case would be ambiguous.
      if (seen.has(name.toLowerCase()))
        throw invalid(`symbol_map names ${name} twice (names are compared case-insensitively)`, 'symbol_map');
      seen.add(name.toLowerCase());
      return { name, symbol: checkSymbol(symbol, `symbol_map.${name}`) };
    });
    update.set['settings.symbol_map'] = pairs;
  }
  if (input.max_volume_per_order !== undefined)
    update.set['settings.max_volume_per_order'] = checkVolumeLimit(input.max_volume_per_order, 'max_volume_per_order');
  if (input.max_total_volume !== undefined)
    update.set['settings.max_total_volume'] = checkVolumeLimit(input.max_total_volume, 'max_total_volume');
  if (input.max_open_positions !== undefined) {
    const value = input.max_open_positions;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > positionsLimitMax)
      throw invalid(`max_open_positions must be an integer from 0 to ${positionsLimitMax}`, 'max_open_positions');
    update.set['settings.max_open_positions'] = value;
  }
  if (input.allowed_symbols !== undefined) {
    const list = input.allowed_symbols;
    if (!Array.isArray(list)) throw invalid('allowed_symbols must be an array of symbol names', 'allowed_symbols');
    if (list.length > allowedSymbolsMax)
      throw invalid(`allowed_symbols has ${list.length} names; at most ${allowedSymbolsMax}`, 'allowed_symbols');
    const seen = new Set<string>();
    update.set['settings.allowed_symbols'] = list.map((symbol, index) => {
      const name = checkSymbol(symbol, `allowed_symbols[${index}]`);
      if (seen.has(name)) throw invalid(`allowed_symbols lists ${name} twice`, `allowed_symbols[${index}]`);
      seen.add(name);
      return name;
    });
  }
  if (input.trading_enabled !== undefined) {
    if (typeof input.trading_enabled !== 'boolean') throw invalid('trading_enabled must be true or false', 'trading_enabled');
    update.set['settings.trading_enabled'] = input.trading_enabled;
  }
  for (const name of clear) update.unset.push(`settings.${name as SettingName}`);
  (update.set as Record<string, unknown>)['settings.updated_at'] = now;
  return update;
}

/** The stored settings after an update, as the one update writes them. */
export function applySettingsUpdate(stored: StoredAccountSettings | undefined, update: SettingsUpdate): StoredAccountSettings {
  const next: Record<string, unknown> = { ...(stored ?? {}) };
  for (const path of update.unset) delete next[path.slice('settings.'.length)];
  for (const [path, value] of Object.entries(update.set)) next[path.slice('settings.'.length)] = value;
  return next as StoredAccountSettings;
}

/** The broker symbol the account's map gives a name (compared case-insensitively), or undefined. */
export function mappedSymbol(settings: AccountSettings, name: string): string | undefined {
  const exact = settings.symbol_map[name];
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  for (const [key, symbol] of Object.entries(settings.symbol_map)) if (key.toLowerCase() === lower) return symbol;
  return undefined;
}
