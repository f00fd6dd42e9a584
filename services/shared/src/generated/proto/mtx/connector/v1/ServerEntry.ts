// Original file: proto/connector/v1/connector.proto


export interface ServerEntry {
  'name'?: (string);
  'platform'?: (string);
  'broker'?: (string);
  'symbol_suffix'?: (string);
  'margin_mode'?: (string);
}

export interface ServerEntry__Output {
  'name': (string);
  'platform': (string);
  'broker': (string);
  'symbol_suffix': (string);
  'margin_mode': (string);
}
