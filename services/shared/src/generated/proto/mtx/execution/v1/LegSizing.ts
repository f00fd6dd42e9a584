// Original file: proto/execution/v1/account_settings.proto


export interface LegSizing {
  'mode'?: (string);
  'equity'?: (number | string);
  'balance'?: (number | string);
  'computed_volume'?: (number | string);
  '_equity'?: "equity";
  '_balance'?: "balance";
}

export interface LegSizing__Output {
  'mode': (string);
  'equity'?: (number);
  'balance'?: (number);
  'computed_volume': (number);
  '_equity'?: "equity";
  '_balance'?: "balance";
}
