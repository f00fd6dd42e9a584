// Original file: proto/terminalhost/v1/terminal_host.proto


export interface StopTerminalReply {
  'stopped'?: (boolean);
}

export interface StopTerminalReply__Output {
  'stopped': (boolean);
}
