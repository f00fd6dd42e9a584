import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccountSettings as _mtx_execution_v1_AccountSettings, AccountSettings__Output as _mtx_execution_v1_AccountSettings__Output } from './mtx/execution/v1/AccountSettings';
import type { LegSizing as _mtx_execution_v1_LegSizing, LegSizing__Output as _mtx_execution_v1_LegSizing__Output } from './mtx/execution/v1/LegSizing';
import type { Sizing as _mtx_execution_v1_Sizing, Sizing__Output as _mtx_execution_v1_Sizing__Output } from './mtx/execution/v1/Sizing';
import type { SymbolList as _mtx_execution_v1_SymbolList, SymbolList__Output as _mtx_execution_v1_SymbolList__Output } from './mtx/execution/v1/SymbolList';
import type { SymbolMap as _mtx_execution_v1_SymbolMap, SymbolMap__Output as _mtx_execution_v1_SymbolMap__Output } from './mtx/execution/v1/SymbolMap';
import type { UpdateAccountSettingsRequest as _mtx_execution_v1_UpdateAccountSettingsRequest, UpdateAccountSettingsRequest__Output as _mtx_execution_v1_UpdateAccountSettingsRequest__Output } from './mtx/execution/v1/UpdateAccountSettingsRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    execution: {
      v1: {
        AccountSettings: MessageTypeDefinition<_mtx_execution_v1_AccountSettings, _mtx_execution_v1_AccountSettings__Output>
        LegSizing: MessageTypeDefinition<_mtx_execution_v1_LegSizing, _mtx_execution_v1_LegSizing__Output>
        Sizing: MessageTypeDefinition<_mtx_execution_v1_Sizing, _mtx_execution_v1_Sizing__Output>
        SymbolList: MessageTypeDefinition<_mtx_execution_v1_SymbolList, _mtx_execution_v1_SymbolList__Output>
        SymbolMap: MessageTypeDefinition<_mtx_execution_v1_SymbolMap, _mtx_execution_v1_SymbolMap__Output>
        UpdateAccountSettingsRequest: MessageTypeDefinition<_mtx_execution_v1_UpdateAccountSettingsRequest, _mtx_execution_v1_UpdateAccountSettingsRequest__Output>
      }
    }
  }
}

