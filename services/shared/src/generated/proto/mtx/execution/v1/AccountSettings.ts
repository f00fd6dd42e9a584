// Original file: proto/execution/v1/account_settings.proto


export interface AccountSettings {
  'account_id'?: (string);
  'symbol_map'?: ({[key: string]: string});
  'max_volume_per_order'?: (number | string);
  'max_open_positions'?: (number);
  'max_total_volume'?: (number | string);
  'allowed_symbols'?: (string)[];
  'has_allowed_symbols'?: (boolean);
  'trading_enabled'?: (boolean);
  'updated_at'?: (string);
  '_max_volume_per_order'?: "max_volume_per_order";
  '_max_open_positions'?: "max_open_positions";
  '_max_total_volume'?: "max_total_volume";
}

export interface AccountSettings__Output {
  'account_id': (string);
  'symbol_map': ({[key: string]: string});
  'max_volume_per_order'?: (number);
  'max_open_positions'?: (number);
  'max_total_volume'?: (number);
  'allowed_symbols': (string)[];
  'has_allowed_symbols': (boolean);
  'trading_enabled': (boolean);
  'updated_at': (string);
  '_max_volume_per_order'?: "max_volume_per_order";
  '_max_open_positions'?: "max_open_positions";
  '_max_total_volume'?: "max_total_volume";
}
