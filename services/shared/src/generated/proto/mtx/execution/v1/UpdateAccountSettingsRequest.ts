// Original file: proto/execution/v1/account_settings.proto

import type { SymbolMap as _mtx_execution_v1_SymbolMap, SymbolMap__Output as _mtx_execution_v1_SymbolMap__Output } from '../../../mtx/execution/v1/SymbolMap';
import type { SymbolList as _mtx_execution_v1_SymbolList, SymbolList__Output as _mtx_execution_v1_SymbolList__Output } from '../../../mtx/execution/v1/SymbolList';

export interface UpdateAccountSettingsRequest {
  'customer_id'?: (string);
  'account_id'?: (string);
  'symbol_map'?: (_mtx_execution_v1_SymbolMap | null);
  'max_volume_per_order'?: (number | string);
  'max_open_positions'?: (number);
  'max_total_volume'?: (number | string);
  'allowed_symbols'?: (_mtx_execution_v1_SymbolList | null);
  'trading_enabled'?: (boolean);
  'clear'?: (string)[];
  '_symbol_map'?: "symbol_map";
  '_max_volume_per_order'?: "max_volume_per_order";
  '_max_open_positions'?: "max_open_positions";
  '_max_total_volume'?: "max_total_volume";
  '_allowed_symbols'?: "allowed_symbols";
  '_trading_enabled'?: "trading_enabled";
}

export interface UpdateAccountSettingsRequest__Output {
  'customer_id': (string);
  'account_id': (string);
  'symbol_map'?: (_mtx_execution_v1_SymbolMap__Output | null);
  'max_volume_per_order'?: (number);
  'max_open_positions'?: (number);
  'max_total_volume'?: (number);
  'allowed_symbols'?: (_mtx_execution_v1_SymbolList__Output | null);
  'trading_enabled'?: (boolean);
  'clear': (string)[];
  '_symbol_map'?: "symbol_map";
  '_max_volume_per_order'?: "max_volume_per_order";
  '_max_open_positions'?: "max_open_positions";
  '_max_total_volume'?: "max_total_volume";
  '_allowed_symbols'?: "allowed_symbols";
  '_trading_enabled'?: "trading_enabled";
}
