// Original file: proto/wallet/v1/wallet.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AuditReport as _mtx_wallet_v1_AuditReport, AuditReport__Output as _mtx_wallet_v1_AuditReport__Output } from '../../../mtx/wallet/v1/AuditReport';
import type { AuditRequest as _mtx_wallet_v1_AuditRequest, AuditRequest__Output as _mtx_wallet_v1_AuditRequest__Output } from '../../../mtx/wallet/v1/AuditRequest';
import type { CreditManyRequest as _mtx_wallet_v1_CreditManyRequest, CreditManyRequest__Output as _mtx_wallet_v1_CreditManyRequest__Output } from '../../../mtx/wallet/v1/CreditManyRequest';
import type { CreditManyResult as _mtx_wallet_v1_CreditManyResult, CreditManyResult__Output as _mtx_wallet_v1_CreditManyResult__Output } from '../../../mtx/wallet/v1/CreditManyResult';
import type { CreditRequest as _mtx_wallet_v1_CreditRequest, CreditRequest__Output as _mtx_wallet_v1_CreditRequest__Output } from '../../../mtx/wallet/v1/CreditRequest';
import type { DebitManyRequest as _mtx_wallet_v1_DebitManyRequest, DebitManyRequest__Output as _mtx_wallet_v1_DebitManyRequest__Output } from '../../../mtx/wallet/v1/DebitManyRequest';
import type { DebitManyResult as _mtx_wallet_v1_DebitManyResult, DebitManyResult__Output as _mtx_wallet_v1_DebitManyResult__Output } from '../../../mtx/wallet/v1/DebitManyResult';
import type { DebitRequest as _mtx_wallet_v1_DebitRequest, DebitRequest__Output as _mtx_wallet_v1_DebitRequest__Output } from '../../../mtx/wallet/v1/DebitRequest';
import type { FindEntriesRequest as _mtx_wallet_v1_FindEntriesRequest, FindEntriesRequest__Output as _mtx_wallet_v1_FindEntriesRequest__Output } from '../../../mtx/wallet/v1/FindEntriesRequest';
import type { FindEntriesResult as _mtx_wallet_v1_FindEntriesResult, FindEntriesResult__Output as _mtx_wallet_v1_FindEntriesResult__Output } from '../../../mtx/wallet/v1/FindEntriesResult';
import type { GetWalletRequest as _mtx_wallet_v1_GetWalletRequest, GetWalletRequest__Output as _mtx_wallet_v1_GetWalletRequest__Output } from '../../../mtx/wallet/v1/GetWalletRequest';
import type { ListEntriesRequest as _mtx_wallet_v1_ListEntriesRequest, ListEntriesRequest__Output as _mtx_wallet_v1_ListEntriesRequest__Output } from '../../../mtx/wallet/v1/ListEntriesRequest';
import type { ListEntriesResponse as _mtx_wallet_v1_ListEntriesResponse, ListEntriesResponse__Output as _mtx_wallet_v1_ListEntriesResponse__Output } from '../../../mtx/wallet/v1/ListEntriesResponse';
import type { MovementResult as _mtx_wallet_v1_MovementResult, MovementResult__Output as _mtx_wallet_v1_MovementResult__Output } from '../../../mtx/wallet/v1/MovementResult';
import type { Wallet as _mtx_wallet_v1_Wallet, Wallet__Output as _mtx_wallet_v1_Wallet__Output } from '../../../mtx/wallet/v1/Wallet';

export interface WalletServiceClient extends grpc.Client {
  Audit(argument: _mtx_wallet_v1_AuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  Audit(argument: _mtx_wallet_v1_AuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  Audit(argument: _mtx_wallet_v1_AuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  Audit(argument: _mtx_wallet_v1_AuditRequest, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  audit(argument: _mtx_wallet_v1_AuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  audit(argument: _mtx_wallet_v1_AuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  audit(argument: _mtx_wallet_v1_AuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  audit(argument: _mtx_wallet_v1_AuditRequest, callback: grpc.requestCallback<_mtx_wallet_v1_AuditReport__Output>): grpc.ClientUnaryCall;
  
  Credit(argument: _mtx_wallet_v1_CreditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  Credit(argument: _mtx_wallet_v1_CreditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  Credit(argument: _mtx_wallet_v1_CreditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  Credit(argument: _mtx_wallet_v1_CreditRequest, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  credit(argument: _mtx_wallet_v1_CreditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  credit(argument: _mtx_wallet_v1_CreditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  credit(argument: _mtx_wallet_v1_CreditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  credit(argument: _mtx_wallet_v1_CreditRequest, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  
  CreditMany(argument: _mtx_wallet_v1_CreditManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  CreditMany(argument: _mtx_wallet_v1_CreditManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  CreditMany(argument: _mtx_wallet_v1_CreditManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  CreditMany(argument: _mtx_wallet_v1_CreditManyRequest, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  creditMany(argument: _mtx_wallet_v1_CreditManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  creditMany(argument: _mtx_wallet_v1_CreditManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  creditMany(argument: _mtx_wallet_v1_CreditManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  creditMany(argument: _mtx_wallet_v1_CreditManyRequest, callback: grpc.requestCallback<_mtx_wallet_v1_CreditManyResult__Output>): grpc.ClientUnaryCall;
  
  Debit(argument: _mtx_wallet_v1_DebitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  Debit(argument: _mtx_wallet_v1_DebitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  Debit(argument: _mtx_wallet_v1_DebitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  Debit(argument: _mtx_wallet_v1_DebitRequest, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  debit(argument: _mtx_wallet_v1_DebitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  debit(argument: _mtx_wallet_v1_DebitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  debit(argument: _mtx_wallet_v1_DebitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  debit(argument: _mtx_wallet_v1_DebitRequest, callback: grpc.requestCallback<_mtx_wallet_v1_MovementResult__Output>): grpc.ClientUnaryCall;
  
  DebitMany(argument: _mtx_wallet_v1_DebitManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  DebitMany(argument: _mtx_wallet_v1_DebitManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  DebitMany(argument: _mtx_wallet_v1_DebitManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  DebitMany(argument: _mtx_wallet_v1_DebitManyRequest, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  debitMany(argument: _mtx_wallet_v1_DebitManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  debitMany(argument: _mtx_wallet_v1_DebitManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  debitMany(argument: _mtx_wallet_v1_DebitManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  debitMany(argument: _mtx_wallet_v1_DebitManyRequest, callback: grpc.requestCallback<_mtx_wallet_v1_DebitManyResult__Output>): grpc.ClientUnaryCall;
  
  FindEntries(argument: _mtx_wallet_v1_FindEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  FindEntries(argument: _mtx_wallet_v1_FindEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  FindEntries(argument: _mtx_wallet_v1_FindEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  FindEntries(argument: _mtx_wallet_v1_FindEntriesRequest, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  findEntries(argument: _mtx_wallet_v1_FindEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  findEntries(argument: _mtx_wallet_v1_FindEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  findEntries(argument: _mtx_wallet_v1_FindEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  findEntries(argument: _mtx_wallet_v1_FindEntriesRequest, callback: grpc.requestCallback<_mtx_wallet_v1_FindEntriesResult__Output>): grpc.ClientUnaryCall;
  
  GetWallet(argument: _mtx_wallet_v1_GetWalletRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  GetWallet(argument: _mtx_wallet_v1_GetWalletRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  GetWallet(argument: _mtx_wallet_v1_GetWalletRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  GetWallet(argument: _mtx_wallet_v1_GetWalletRequest, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  getWallet(argument: _mtx_wallet_v1_GetWalletRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  getWallet(argument: _mtx_wallet_v1_GetWalletRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  getWallet(argument: _mtx_wallet_v1_GetWalletRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  getWallet(argument: _mtx_wallet_v1_GetWalletRequest, callback: grpc.requestCallback<_mtx_wallet_v1_Wallet__Output>): grpc.ClientUnaryCall;
  
  ListEntries(argument: _mtx_wallet_v1_ListEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _mtx_wallet_v1_ListEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _mtx_wallet_v1_ListEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _mtx_wallet_v1_ListEntriesRequest, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _mtx_wallet_v1_ListEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _mtx_wallet_v1_ListEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _mtx_wallet_v1_ListEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _mtx_wallet_v1_ListEntriesRequest, callback: grpc.requestCallback<_mtx_wallet_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface WalletServiceHandlers extends grpc.UntypedServiceImplementation {
  Audit: grpc.handleUnaryCall<_mtx_wallet_v1_AuditRequest__Output, _mtx_wallet_v1_AuditReport>;
  
  Credit: grpc.handleUnaryCall<_mtx_wallet_v1_CreditRequest__Output, _mtx_wallet_v1_MovementResult>;
  
  CreditMany: grpc.handleUnaryCall<_mtx_wallet_v1_CreditManyRequest__Output, _mtx_wallet_v1_CreditManyResult>;
  
  Debit: grpc.handleUnaryCall<_mtx_wallet_v1_DebitRequest__Output, _mtx_wallet_v1_MovementResult>;
  
  DebitMany: grpc.handleUnaryCall<_mtx_wallet_v1_DebitManyRequest__Output, _mtx_wallet_v1_DebitManyResult>;
  
  FindEntries: grpc.handleUnaryCall<_mtx_wallet_v1_FindEntriesRequest__Output, _mtx_wallet_v1_FindEntriesResult>;
  
  GetWallet: grpc.handleUnaryCall<_mtx_wallet_v1_GetWalletRequest__Output, _mtx_wallet_v1_Wallet>;
  
  ListEntries: grpc.handleUnaryCall<_mtx_wallet_v1_ListEntriesRequest__Output, _mtx_wallet_v1_ListEntriesResponse>;
  
}

export interface WalletServiceDefinition extends grpc.ServiceDefinition {
  Audit: MethodDefinition<_mtx_wallet_v1_AuditRequest, _mtx_wallet_v1_AuditReport, _mtx_wallet_v1_AuditRequest__Output, _mtx_wallet_v1_AuditReport__Output>
  Credit: MethodDefinition<_mtx_wallet_v1_CreditRequest, _mtx_wallet_v1_MovementResult, _mtx_wallet_v1_CreditRequest__Output, _mtx_wallet_v1_MovementResult__Output>
  CreditMany: MethodDefinition<_mtx_wallet_v1_CreditManyRequest, _mtx_wallet_v1_CreditManyResult, _mtx_wallet_v1_CreditManyRequest__Output, _mtx_wallet_v1_CreditManyResult__Output>
  Debit: MethodDefinition<_mtx_wallet_v1_DebitRequest, _mtx_wallet_v1_MovementResult, _mtx_wallet_v1_DebitRequest__Output, _mtx_wallet_v1_MovementResult__Output>
  DebitMany: MethodDefinition<_mtx_wallet_v1_DebitManyRequest, _mtx_wallet_v1_DebitManyResult, _mtx_wallet_v1_DebitManyRequest__Output, _mtx_wallet_v1_DebitManyResult__Output>
  FindEntries: MethodDefinition<_mtx_wallet_v1_FindEntriesRequest, _mtx_wallet_v1_FindEntriesResult, _mtx_wallet_v1_FindEntriesRequest__Output, _mtx_wallet_v1_FindEntriesResult__Output>
  GetWallet: MethodDefinition<_mtx_wallet_v1_GetWalletRequest, _mtx_wallet_v1_Wallet, _mtx_wallet_v1_GetWalletRequest__Output, _mtx_wallet_v1_Wallet__Output>
  ListEntries: MethodDefinition<_mtx_wallet_v1_ListEntriesRequest, _mtx_wallet_v1_ListEntriesResponse, _mtx_wallet_v1_ListEntriesRequest__Output, _mtx_wallet_v1_ListEntriesResponse__Output>
}
