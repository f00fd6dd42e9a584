import { useEffect, useState } from 'preact/hooks';
import type { AccountSettings, AccountSettingsChange } from '../api/types';
import { useSession } from '../context';
import { formatDate } from '../domain/money';
import { useAction, usePolled } from '../hooks';
import { ErrorNotice } from './common';

/** The form's text, one per setting; blank means "no limit", "every symbol" or "no map". */
interface Draft {
  max_volume_per_order: string;
  max_open_positions: string;
  max_total_volume: string;
  allowed_symbols: string;
  symbol_map: string;
  trading_enabled: boolean;
}

function draftOf(settings: AccountSettings): Draft {
  const text = (value: number | null) => (value === null ? '' : String(value));
  return {
    max_volume_per_order: text(settings.max_volume_per_order),
    max_open_positions: text(settings.max_open_positions),
    max_total_volume: text(settings.max_total_volume),
    allowed_symbols: (settings.allowed_symbols ?? []).join(', '),
    symbol_map: Object.entries(settings.symbol_map)
      .map(([name, symbol]) => `${name}=${symbol}`)
      .join('\n'),
    trading_enabled: settings.trading_enabled,
  };
}

/**
 * The PATCH body: only the fields that differ from what was read, blank as null (reset). What was typed is sent
 * as typed when it is not a number, so the API's own check names the field and nothing changes.
 */
export function settingsChange(before: Draft, after: Draft): AccountSettingsChange {
  const change: Record<string, unknown> = {};
  for (const name of ['max_volume_per_order', 'max_open_positions', 'max_total_volume'] as const)
    if (after[name].trim() !== before[name].trim()) {
      const text = after[name].trim();
      change[name] = text === '' ? null : Number.isFinite(Number(text)) ? Number(text) : text;
    }
  if (after.allowed_symbols.trim() !== before.allowed_symbols.trim()) {
    const symbols = after.allowed_symbols
      .split(/[\s,]+/)
      .map((symbol) => symbol.trim())
      .filter(Boolean);
    change.allowed_symbols = symbols.length === 0 ? null : symbols;
  }
  if (after.symbol_map.trim() !== before.symbol_map.trim()) {
    const lines = after.symbol_map
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    change.symbol_map =
      lines.length === 0
        ? null
        : Object.fromEntries(
            lines.map((line) => {
              const [name = '', ...symbol] = line.split('=');
              return [name.trim(), symbol.join('=').trim()];
            }),
          );
  }
  if (after.trading_enabled !== before.trading_enabled) change.trading_enabled = after.trading_enabled;
  return change as AccountSettingsChange;
}

/** An account's settings: shown to any key, edited with the full key (PATCH, only the fields changed). */
export function AccountSettingsPanel({ accountId }: { accountId: string }) {
  const { api } = useSession();
  const path = `/v1/accounts/${encodeURIComponent(accountId)}/settings`;
  const settings = usePolled(() => api.get<AccountSettings>(path), [api, accountId]);
  const save = useAction<AccountSettings>();
  const [draft, setDraft] = useState<Draft | undefined>(undefined);
  const loaded = save.result ?? settings.data;
  useEffect(() => {
    if (loaded) setDraft(draftOf(loaded));
  }, [loaded]);
  if (settings.error) return <ErrorNotice action="Reading the settings" error={settings.error} />;
  if (!loaded || !draft) return null;
  const change = settingsChange(draftOf(loaded), draft);
  const changed = Object.keys(change).length > 0;
  const set = (update: Partial<Draft>) => setDraft({ ...draft, ...update });
  const id = (name: string) => `settings-${accountId}-${name}`;
  const field = (name: 'max_volume_per_order' | 'max_open_positions' | 'max_total_volume', label: string) => (
    <label for={id(name)}>
      {label}
      <input
        id={id(name)}
        inputMode="decimal"
        value={draft[name]}
        placeholder="no limit"
        disabled={api.readOnly}
        onInput={(event) => set({ [name]: (event.target as HTMLInputElement).value })}
        data-testid={`settings-${name}`}
      />
    </label>
  );
  return (
    <details data-testid="account-settings">
      <summary>Settings{loaded.trading_enabled ? '' : ' (trading disabled)'}</summary>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          void save.run(() => api.request<AccountSettings>('PATCH', path, { body: change }));
        }}
      >
        <label class="check">
          <input
            type="checkbox"
            checked={draft.trading_enabled}
            disabled={api.readOnly}
            onChange={(event) => set({ trading_enabled: (event.target as HTMLInputElement).checked })}
          />
          Trading enabled (off: legs that open risk are refused; closing and modifying stay allowed)
        </label>
        {field('max_volume_per_order', 'Max lots per order')}
        {field('max_open_positions', 'Max open positions')}
        {field('max_total_volume', 'Max lots open in all')}
        <label for={id('allowed_symbols')}>
          Allowed symbols (blank: every symbol)
          <input
            id={id('allowed_symbols')}
            value={draft.allowed_symbols}
            placeholder="EURUSD.xx, XAUUSD.xx"
            disabled={api.readOnly}
            onInput={(event) => set({ allowed_symbols: (event.target as HTMLInputElement).value })}
          />
        </label>
        <label for={id('symbol_map')}>
          Symbol map (one NAME=BROKER SYMBOL a line)
          <textarea
            id={id('symbol_map')}
            rows={3}
            value={draft.symbol_map}
            placeholder="GOLD=XAUUSD.xx"
            disabled={api.readOnly}
            onInput={(event) => set({ symbol_map: (event.target as HTMLTextAreaElement).value })}
          />
        </label>
        {!api.readOnly && (
          <span class="button-row">
            <button type="submit" disabled={!changed || save.pending} data-testid="settings-save">
              {save.pending ? 'Saving…' : 'Save settings'}
            </button>
            <button type="button" class="button-quiet" disabled={!changed || save.pending} onClick={() => setDraft(draftOf(loaded))}>
              Undo changes
            </button>
          </span>
        )}
        <p class="muted">{loaded.updated_at ? `Changed ${formatDate(loaded.updated_at)}` : 'Never changed: the defaults.'}</p>
      </form>
      <ErrorNotice action="Saving the settings" error={save.error} />
    </details>
  );
}
