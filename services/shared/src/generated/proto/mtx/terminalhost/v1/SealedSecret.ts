// Original file: proto/terminalhost/v1/terminal_host.proto


export interface SealedSecret {
  'iv'?: (Buffer | Uint8Array | string);
  'tag'?: (Buffer | Uint8Array | string);
  'data'?: (Buffer | Uint8Array | string);
}

export interface SealedSecret__Output {
  'iv': (Buffer);
  'tag': (Buffer);
  'data': (Buffer);
}
