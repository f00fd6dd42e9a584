// Original file: proto/execution/v1/account_settings.proto


export interface SymbolList {
  'symbols'?: (string)[];
}

export interface SymbolList__Output {
  'symbols': (string)[];
}
