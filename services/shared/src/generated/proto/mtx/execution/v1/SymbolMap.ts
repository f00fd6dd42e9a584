// Original file: proto/execution/v1/account_settings.proto


export interface SymbolMap {
  'entries'?: ({[key: string]: string});
}

export interface SymbolMap__Output {
  'entries': ({[key: string]: string});
}
