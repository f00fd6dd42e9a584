// Original file: proto/execution/v1/execution.proto


export interface SymbolList {
  'symbols'?: (string)[];
}

export interface SymbolList__Output {
  'symbols': (string)[];
}
