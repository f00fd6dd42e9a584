// Original file: proto/terminalhost/v1/terminal_host.proto


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
