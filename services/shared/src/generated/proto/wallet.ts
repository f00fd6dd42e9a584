import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AuditReport as _mtx_wallet_v1_AuditReport, AuditReport__Output as _mtx_wallet_v1_AuditReport__Output } from './mtx/wallet/v1/AuditReport';
import type { AuditRequest as _mtx_wallet_v1_AuditRequest, AuditRequest__Output as _mtx_wallet_v1_AuditRequest__Output } from './mtx/wallet/v1/AuditRequest';
import type { CreditManyItem as _mtx_wallet_v1_CreditManyItem, CreditManyItem__Output as _mtx_wallet_v1_CreditManyItem__Output } from './mtx/wallet/v1/CreditManyItem';
import type { CreditManyRequest as _mtx_wallet_v1_CreditManyRequest, CreditManyRequest__Output as _mtx_wallet_v1_CreditManyRequest__Output } from './mtx/wallet/v1/CreditManyRequest';
import type { CreditManyResult as _mtx_wallet_v1_CreditManyResult, CreditManyResult__Output as _mtx_wallet_v1_CreditManyResult__Output } from './mtx/wallet/v1/CreditManyResult';
import type { CreditRequest as _mtx_wallet_v1_CreditRequest, CreditRequest__Output as _mtx_wallet_v1_CreditRequest__Output } from './mtx/wallet/v1/CreditRequest';
import type { DebitEntry as _mtx_wallet_v1_DebitEntry, DebitEntry__Output as _mtx_wallet_v1_DebitEntry__Output } from './mtx/wallet/v1/DebitEntry';
import type { DebitManyItem as _mtx_wallet_v1_DebitManyItem, DebitManyItem__Output as _mtx_wallet_v1_DebitManyItem__Output } from './mtx/wallet/v1/DebitManyItem';
import type { DebitManyRequest as _mtx_wallet_v1_DebitManyRequest, DebitManyRequest__Output as _mtx_wallet_v1_DebitManyRequest__Output } from './mtx/wallet/v1/DebitManyRequest';
import type { DebitManyResult as _mtx_wallet_v1_DebitManyResult, DebitManyResult__Output as _mtx_wallet_v1_DebitManyResult__Output } from './mtx/wallet/v1/DebitManyResult';
import type { DebitRequest as _mtx_wallet_v1_DebitRequest, DebitRequest__Output as _mtx_wallet_v1_DebitRequest__Output } from './mtx/wallet/v1/DebitRequest';
import type { EntryKey as _mtx_wallet_v1_EntryKey, EntryKey__Output as _mtx_wallet_v1_EntryKey__Output } from './mtx/wallet/v1/EntryKey';
import type { FindEntriesRequest as _mtx_wallet_v1_FindEntriesRequest, FindEntriesRequest__Output as _mtx_wallet_v1_FindEntriesRequest__Output } from './mtx/wallet/v1/FindEntriesRequest';
import type { FindEntriesResult as _mtx_wallet_v1_FindEntriesResult, FindEntriesResult__Output as _mtx_wallet_v1_FindEntriesResult__Output } from './mtx/wallet/v1/FindEntriesResult';
import type { FoundEntry as _mtx_wallet_v1_FoundEntry, FoundEntry__Output as _mtx_wallet_v1_FoundEntry__Output } from './mtx/wallet/v1/FoundEntry';
import type { GetWalletRequest as _mtx_wallet_v1_GetWalletRequest, GetWalletRequest__Output as _mtx_wallet_v1_GetWalletRequest__Output } from './mtx/wallet/v1/GetWalletRequest';
import type { LedgerEntry as _mtx_wallet_v1_LedgerEntry, LedgerEntry__Output as _mtx_wallet_v1_LedgerEntry__Output } from './mtx/wallet/v1/LedgerEntry';
import type { ListEntriesRequest as _mtx_wallet_v1_ListEntriesRequest, ListEntriesRequest__Output as _mtx_wallet_v1_ListEntriesRequest__Output } from './mtx/wallet/v1/ListEntriesRequest';
import type { ListEntriesResponse as _mtx_wallet_v1_ListEntriesResponse, ListEntriesResponse__Output as _mtx_wallet_v1_ListEntriesResponse__Output } from './mtx/wallet/v1/ListEntriesResponse';
import type { MovementResult as _mtx_wallet_v1_MovementResult, MovementResult__Output as _mtx_wallet_v1_MovementResult__Output } from './mtx/wallet/v1/MovementResult';
import type { Wallet as _mtx_wallet_v1_Wallet, Wallet__Output as _mtx_wallet_v1_Wallet__Output } from './mtx/wallet/v1/Wallet';
import type { WalletServiceClient as _mtx_wallet_v1_WalletServiceClient, WalletServiceDefinition as _mtx_wallet_v1_WalletServiceDefinition } from './mtx/wallet/v1/WalletService';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    wallet: {
      v1: {
        AuditReport: MessageTypeDefinition<_mtx_wallet_v1_AuditReport, _mtx_wallet_v1_AuditReport__Output>
        AuditRequest: MessageTypeDefinition<_mtx_wallet_v1_AuditRequest, _mtx_wallet_v1_AuditRequest__Output>
        CreditManyItem: MessageTypeDefinition<_mtx_wallet_v1_CreditManyItem, _mtx_wallet_v1_CreditManyItem__Output>
        CreditManyRequest: MessageTypeDefinition<_mtx_wallet_v1_CreditManyRequest, _mtx_wallet_v1_CreditManyRequest__Output>
        CreditManyResult: MessageTypeDefinition<_mtx_wallet_v1_CreditManyResult, _mtx_wallet_v1_CreditManyResult__Output>
        CreditRequest: MessageTypeDefinition<_mtx_wallet_v1_CreditRequest, _mtx_wallet_v1_CreditRequest__Output>
        DebitEntry: MessageTypeDefinition<_mtx_wallet_v1_DebitEntry, _mtx_wallet_v1_DebitEntry__Output>
        DebitManyItem: MessageTypeDefinition<_mtx_wallet_v1_DebitManyItem, _mtx_wallet_v1_DebitManyItem__Output>
        DebitManyRequest: MessageTypeDefinition<_mtx_wallet_v1_DebitManyRequest, _mtx_wallet_v1_DebitManyRequest__Output>
        DebitManyResult: MessageTypeDefinition<_mtx_wallet_v1_DebitManyResult, _mtx_wallet_v1_DebitManyResult__Output>
        DebitRequest: MessageTypeDefinition<_mtx_wallet_v1_DebitRequest, _mtx_wallet_v1_DebitRequest__Output>
        EntryKey: MessageTypeDefinition<_mtx_wallet_v1_EntryKey, _mtx_wallet_v1_EntryKey__Output>
        FindEntriesRequest: MessageTypeDefinition<_mtx_wallet_v1_FindEntriesRequest, _mtx_wallet_v1_FindEntriesRequest__Output>
        FindEntriesResult: MessageTypeDefinition<_mtx_wallet_v1_FindEntriesResult, _mtx_wallet_v1_FindEntriesResult__Output>
        FoundEntry: MessageTypeDefinition<_mtx_wallet_v1_FoundEntry, _mtx_wallet_v1_FoundEntry__Output>
        GetWalletRequest: MessageTypeDefinition<_mtx_wallet_v1_GetWalletRequest, _mtx_wallet_v1_GetWalletRequest__Output>
        LedgerEntry: MessageTypeDefinition<_mtx_wallet_v1_LedgerEntry, _mtx_wallet_v1_LedgerEntry__Output>
        ListEntriesRequest: MessageTypeDefinition<_mtx_wallet_v1_ListEntriesRequest, _mtx_wallet_v1_ListEntriesRequest__Output>
        ListEntriesResponse: MessageTypeDefinition<_mtx_wallet_v1_ListEntriesResponse, _mtx_wallet_v1_ListEntriesResponse__Output>
        MovementResult: MessageTypeDefinition<_mtx_wallet_v1_MovementResult, _mtx_wallet_v1_MovementResult__Output>
        Wallet: MessageTypeDefinition<_mtx_wallet_v1_Wallet, _mtx_wallet_v1_Wallet__Output>
        WalletService: SubtypeConstructor<typeof grpc.Client, _mtx_wallet_v1_WalletServiceClient> & { service: _mtx_wallet_v1_WalletServiceDefinition }
      }
    }
  }
}

