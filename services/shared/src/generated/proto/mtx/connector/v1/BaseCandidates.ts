// Original file: proto/connector/v1/inspect.proto

import type { SymbolSpecification as _mtx_connector_v1_SymbolSpecification, SymbolSpecification__Output as _mtx_connector_v1_SymbolSpecification__Output } from '../../../mtx/connector/v1/SymbolSpecification';

export interface BaseCandidates {
  'base'?: (string);
  'candidates'?: (_mtx_connector_v1_SymbolSpecification)[];
}

export interface BaseCandidates__Output {
  'base': (string);
  'candidates': (_mtx_connector_v1_SymbolSpecification__Output)[];
}
