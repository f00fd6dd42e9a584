// Original file: proto/terminalhost/v1/terminal_host.proto


export interface StopTerminalRequest {
  'account_id'?: (string);
}

export interface StopTerminalRequest__Output {
  'account_id': (string);
}
