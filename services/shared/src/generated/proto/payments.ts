import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AssetRow as _mtx_payments_v1_AssetRow, AssetRow__Output as _mtx_payments_v1_AssetRow__Output } from './mtx/payments/v1/AssetRow';
import type { CreateTopupRequest as _mtx_payments_v1_CreateTopupRequest, CreateTopupRequest__Output as _mtx_payments_v1_CreateTopupRequest__Output } from './mtx/payments/v1/CreateTopupRequest';
import type { GetTopupRequest as _mtx_payments_v1_GetTopupRequest, GetTopupRequest__Output as _mtx_payments_v1_GetTopupRequest__Output } from './mtx/payments/v1/GetTopupRequest';
import type { HandlePostbackRequest as _mtx_payments_v1_HandlePostbackRequest, HandlePostbackRequest__Output as _mtx_payments_v1_HandlePostbackRequest__Output } from './mtx/payments/v1/HandlePostbackRequest';
import type { HandlePostbackResponse as _mtx_payments_v1_HandlePostbackResponse, HandlePostbackResponse__Output as _mtx_payments_v1_HandlePostbackResponse__Output } from './mtx/payments/v1/HandlePostbackResponse';
import type { ListAssetsRequest as _mtx_payments_v1_ListAssetsRequest, ListAssetsRequest__Output as _mtx_payments_v1_ListAssetsRequest__Output } from './mtx/payments/v1/ListAssetsRequest';
import type { ListAssetsResponse as _mtx_payments_v1_ListAssetsResponse, ListAssetsResponse__Output as _mtx_payments_v1_ListAssetsResponse__Output } from './mtx/payments/v1/ListAssetsResponse';
import type { ListPendingTopupsRequest as _mtx_payments_v1_ListPendingTopupsRequest, ListPendingTopupsRequest__Output as _mtx_payments_v1_ListPendingTopupsRequest__Output } from './mtx/payments/v1/ListPendingTopupsRequest';
import type { ListPendingTopupsResponse as _mtx_payments_v1_ListPendingTopupsResponse, ListPendingTopupsResponse__Output as _mtx_payments_v1_ListPendingTopupsResponse__Output } from './mtx/payments/v1/ListPendingTopupsResponse';
import type { PaymentsServiceClient as _mtx_payments_v1_PaymentsServiceClient, PaymentsServiceDefinition as _mtx_payments_v1_PaymentsServiceDefinition } from './mtx/payments/v1/PaymentsService';
import type { Topup as _mtx_payments_v1_Topup, Topup__Output as _mtx_payments_v1_Topup__Output } from './mtx/payments/v1/Topup';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    payments: {
      v1: {
        AssetRow: MessageTypeDefinition<_mtx_payments_v1_AssetRow, _mtx_payments_v1_AssetRow__Output>
        CreateTopupRequest: MessageTypeDefinition<_mtx_payments_v1_CreateTopupRequest, _mtx_payments_v1_CreateTopupRequest__Output>
        GetTopupRequest: MessageTypeDefinition<_mtx_payments_v1_GetTopupRequest, _mtx_payments_v1_GetTopupRequest__Output>
        HandlePostbackRequest: MessageTypeDefinition<_mtx_payments_v1_HandlePostbackRequest, _mtx_payments_v1_HandlePostbackRequest__Output>
        HandlePostbackResponse: MessageTypeDefinition<_mtx_payments_v1_HandlePostbackResponse, _mtx_payments_v1_HandlePostbackResponse__Output>
        ListAssetsRequest: MessageTypeDefinition<_mtx_payments_v1_ListAssetsRequest, _mtx_payments_v1_ListAssetsRequest__Output>
        ListAssetsResponse: MessageTypeDefinition<_mtx_payments_v1_ListAssetsResponse, _mtx_payments_v1_ListAssetsResponse__Output>
        ListPendingTopupsRequest: MessageTypeDefinition<_mtx_payments_v1_ListPendingTopupsRequest, _mtx_payments_v1_ListPendingTopupsRequest__Output>
        ListPendingTopupsResponse: MessageTypeDefinition<_mtx_payments_v1_ListPendingTopupsResponse, _mtx_payments_v1_ListPendingTopupsResponse__Output>
        PaymentsService: SubtypeConstructor<typeof grpc.Client, _mtx_payments_v1_PaymentsServiceClient> & { service: _mtx_payments_v1_PaymentsServiceDefinition }
        Topup: MessageTypeDefinition<_mtx_payments_v1_Topup, _mtx_payments_v1_Topup__Output>
      }
    }
  }
}

