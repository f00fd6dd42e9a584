// Original file: proto/execution/v1/account_settings.proto


export interface Sizing {
  'mode'?: (string);
  'lots_per_1000'?: (number | string);
  'percent'?: (number | string);
  '_lots_per_1000'?: "lots_per_1000";
  '_percent'?: "percent";
}

export interface Sizing__Output {
  'mode': (string);
  'lots_per_1000'?: (number);
  'percent'?: (number);
  '_lots_per_1000'?: "lots_per_1000";
  '_percent'?: "percent";
}
