// Original file: proto/terminalhost/v1/terminal_host.proto


export interface StartTerminalReply {
  'status'?: (string);
  'message'?: (string);
  'server'?: (string);
  'symbol_suffix'?: (string);
  'margin_mode'?: (string);
}

export interface StartTerminalReply__Output {
  'status': (string);
  'message': (string);
  'server': (string);
  'symbol_suffix': (string);
  'margin_mode': (string);
}
