import type { Clock } from '@mtx/shared/clock';
import type { AccountSettings as AccountSettingsMessage } from '@mtx/shared/generated/proto/mtx/execution/v1/AccountSettings';
import type { Logger } from '@mtx/shared/logger';
import {
  type AccountSettings,
  applySettingsUpdate,
  type SettingsChangeInput,
  settingsOf,
  settingsUpdateOf,
} from '../domain/account-settings';
import type { ExecutionStore } from '../store/execution-store';
import type { AccountRegistry } from './accounts';

export interface AccountSettingsView extends AccountSettings {
  account_id: string;
}

/** The settings as execution.proto's AccountSettings (a list's presence carried by has_allowed_symbols). */
export function settingsMessage(view: AccountSettingsView): AccountSettingsMessage {
  return {
    account_id: view.account_id,
    symbol_map: view.symbol_map,
    ...(view.max_volume_per_order !== undefined ? { max_volume_per_order: view.max_volume_per_order } : {}),
    ...(view.max_open_positions !== undefined ? { max_open_positions: view.max_open_positions } : {}),
    ...(view.max_total_volume !== undefined ? { max_total_volume: view.max_total_volume } : {}),
    allowed_symbols: view.allowed_symbols ?? [],
    has_allowed_symbols: view.allowed_symbols !== undefined,
    trading_enabled: view.trading_enabled,
    updated_at: view.updated_at ? view.updated_at.toISOString() : '',
  };
}

/**
 * An account's pre-trade settings, kept in the account's own document: a change is checked in full first (a bad
 * one changes nothing), then written as one update of that document, then announced like every account change, so
 * each replica's account cache (the FreshCache the batches read accounts through) drops what it held.
 */
export class AccountSettingsService {
  constructor(private readonly options: { store: ExecutionStore; registry: AccountRegistry; clock: Clock; logger: Logger }) {}

  async get(customerId: string, accountId: string): Promise<AccountSettingsView> {
    const document = await this.options.registry.get(customerId, accountId);
    return { account_id: document._id, ...settingsOf(document.settings) };
  }

  async update(customerId: string, accountId: string, change: SettingsChangeInput): Promise<AccountSettingsView> {
    const document = await this.options.registry.get(customerId, accountId);
    const update = settingsUpdateOf(change, this.options.clock.now());
    // Dotted paths: one document, one update, and two changes of different fields never undo each other.
    await this.options.store.accounts.updateOne(
      { _id: accountId, customer_id: customerId },
      {
        ...(Object.keys(update.set).length > 0 ? { $set: update.set } : {}),
        ...(update.unset.length > 0 ? { $unset: Object.fromEntries(update.unset.map((path) => [path, '' as const])) } : {}),
      },
    );
    this.options.registry.noteChanged(accountId);
    this.options.logger.info(
      { account_id: accountId, customer_id: customerId, changed: Object.keys(update.set), cleared: update.unset },
      'account settings changed',
    );
    // Read back, so the answer includes whatever another change wrote at the same time.
    const stored = await this.options.store.accounts.findOne({ _id: accountId });
    return { account_id: accountId, ...settingsOf(stored?.settings ?? applySettingsUpdate(document.settings, update)) };
  }
}
