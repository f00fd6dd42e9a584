// Original file: proto/brokersim/v1/brokersim.proto


export interface ServerInfo {
  'name'?: (string);
  'platform'?: (string);
  'broker'?: (string);
  'symbol_suffix'?: (string);
  'margin_mode'?: (string);
  'symbols'?: (string)[];
}

export interface ServerInfo__Output {
  'name': (string);
  'platform': (string);
  'broker': (string);
  'symbol_suffix': (string);
  'margin_mode': (string);
  'symbols': (string)[];
}
