import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccountFigures as _mtx_connector_v1_AccountFigures, AccountFigures__Output as _mtx_connector_v1_AccountFigures__Output } from './mtx/connector/v1/AccountFigures';
import type { BaseCandidates as _mtx_connector_v1_BaseCandidates, BaseCandidates__Output as _mtx_connector_v1_BaseCandidates__Output } from './mtx/connector/v1/BaseCandidates';
import type { CloseReply as _mtx_connector_v1_CloseReply, CloseReply__Output as _mtx_connector_v1_CloseReply__Output } from './mtx/connector/v1/CloseReply';
import type { CloseRequest as _mtx_connector_v1_CloseRequest, CloseRequest__Output as _mtx_connector_v1_CloseRequest__Output } from './mtx/connector/v1/CloseRequest';
import type { CloseSelector as _mtx_connector_v1_CloseSelector, CloseSelector__Output as _mtx_connector_v1_CloseSelector__Output } from './mtx/connector/v1/CloseSelector';
import type { HistoryDeal as _mtx_connector_v1_HistoryDeal, HistoryDeal__Output as _mtx_connector_v1_HistoryDeal__Output } from './mtx/connector/v1/HistoryDeal';
import type { HistoryOrder as _mtx_connector_v1_HistoryOrder, HistoryOrder__Output as _mtx_connector_v1_HistoryOrder__Output } from './mtx/connector/v1/HistoryOrder';
import type { HistoryReply as _mtx_connector_v1_HistoryReply, HistoryReply__Output as _mtx_connector_v1_HistoryReply__Output } from './mtx/connector/v1/HistoryReply';
import type { HistoryRequest as _mtx_connector_v1_HistoryRequest, HistoryRequest__Output as _mtx_connector_v1_HistoryRequest__Output } from './mtx/connector/v1/HistoryRequest';
import type { InspectReply as _mtx_connector_v1_InspectReply, InspectReply__Output as _mtx_connector_v1_InspectReply__Output } from './mtx/connector/v1/InspectReply';
import type { InspectRequest as _mtx_connector_v1_InspectRequest, InspectRequest__Output as _mtx_connector_v1_InspectRequest__Output } from './mtx/connector/v1/InspectRequest';
import type { LegResult as _mtx_connector_v1_LegResult, LegResult__Output as _mtx_connector_v1_LegResult__Output } from './mtx/connector/v1/LegResult';
import type { LookupEntry as _mtx_connector_v1_LookupEntry, LookupEntry__Output as _mtx_connector_v1_LookupEntry__Output } from './mtx/connector/v1/LookupEntry';
import type { LookupReply as _mtx_connector_v1_LookupReply, LookupReply__Output as _mtx_connector_v1_LookupReply__Output } from './mtx/connector/v1/LookupReply';
import type { LookupRequest as _mtx_connector_v1_LookupRequest, LookupRequest__Output as _mtx_connector_v1_LookupRequest__Output } from './mtx/connector/v1/LookupRequest';
import type { MarginCheck as _mtx_connector_v1_MarginCheck, MarginCheck__Output as _mtx_connector_v1_MarginCheck__Output } from './mtx/connector/v1/MarginCheck';
import type { MarginResult as _mtx_connector_v1_MarginResult, MarginResult__Output as _mtx_connector_v1_MarginResult__Output } from './mtx/connector/v1/MarginResult';
import type { ModifyChange as _mtx_connector_v1_ModifyChange, ModifyChange__Output as _mtx_connector_v1_ModifyChange__Output } from './mtx/connector/v1/ModifyChange';
import type { ModifyReply as _mtx_connector_v1_ModifyReply, ModifyReply__Output as _mtx_connector_v1_ModifyReply__Output } from './mtx/connector/v1/ModifyReply';
import type { ModifyRequest as _mtx_connector_v1_ModifyRequest, ModifyRequest__Output as _mtx_connector_v1_ModifyRequest__Output } from './mtx/connector/v1/ModifyRequest';
import type { ModifyTicketResult as _mtx_connector_v1_ModifyTicketResult, ModifyTicketResult__Output as _mtx_connector_v1_ModifyTicketResult__Output } from './mtx/connector/v1/ModifyTicketResult';
import type { OpenPosition as _mtx_connector_v1_OpenPosition, OpenPosition__Output as _mtx_connector_v1_OpenPosition__Output } from './mtx/connector/v1/OpenPosition';
import type { OrderLeg as _mtx_connector_v1_OrderLeg, OrderLeg__Output as _mtx_connector_v1_OrderLeg__Output } from './mtx/connector/v1/OrderLeg';
import type { PingReply as _mtx_connector_v1_PingReply, PingReply__Output as _mtx_connector_v1_PingReply__Output } from './mtx/connector/v1/PingReply';
import type { PingRequest as _mtx_connector_v1_PingRequest, PingRequest__Output as _mtx_connector_v1_PingRequest__Output } from './mtx/connector/v1/PingRequest';
import type { PlaceReply as _mtx_connector_v1_PlaceReply, PlaceReply__Output as _mtx_connector_v1_PlaceReply__Output } from './mtx/connector/v1/PlaceReply';
import type { PlaceRequest as _mtx_connector_v1_PlaceRequest, PlaceRequest__Output as _mtx_connector_v1_PlaceRequest__Output } from './mtx/connector/v1/PlaceRequest';
import type { PositionsReply as _mtx_connector_v1_PositionsReply, PositionsReply__Output as _mtx_connector_v1_PositionsReply__Output } from './mtx/connector/v1/PositionsReply';
import type { PositionsRequest as _mtx_connector_v1_PositionsRequest, PositionsRequest__Output as _mtx_connector_v1_PositionsRequest__Output } from './mtx/connector/v1/PositionsRequest';
import type { StateReply as _mtx_connector_v1_StateReply, StateReply__Output as _mtx_connector_v1_StateReply__Output } from './mtx/connector/v1/StateReply';
import type { StateRequest as _mtx_connector_v1_StateRequest, StateRequest__Output as _mtx_connector_v1_StateRequest__Output } from './mtx/connector/v1/StateRequest';
import type { SymbolSpecification as _mtx_connector_v1_SymbolSpecification, SymbolSpecification__Output as _mtx_connector_v1_SymbolSpecification__Output } from './mtx/connector/v1/SymbolSpecification';
import type { TicketResult as _mtx_connector_v1_TicketResult, TicketResult__Output as _mtx_connector_v1_TicketResult__Output } from './mtx/connector/v1/TicketResult';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  mtx: {
    connector: {
      v1: {
        AccountFigures: MessageTypeDefinition<_mtx_connector_v1_AccountFigures, _mtx_connector_v1_AccountFigures__Output>
        BaseCandidates: MessageTypeDefinition<_mtx_connector_v1_BaseCandidates, _mtx_connector_v1_BaseCandidates__Output>
        CloseReply: MessageTypeDefinition<_mtx_connector_v1_CloseReply, _mtx_connector_v1_CloseReply__Output>
        CloseRequest: MessageTypeDefinition<_mtx_connector_v1_CloseRequest, _mtx_connector_v1_CloseRequest__Output>
        CloseSelector: MessageTypeDefinition<_mtx_connector_v1_CloseSelector, _mtx_connector_v1_CloseSelector__Output>
        HistoryDeal: MessageTypeDefinition<_mtx_connector_v1_HistoryDeal, _mtx_connector_v1_HistoryDeal__Output>
        HistoryOrder: MessageTypeDefinition<_mtx_connector_v1_HistoryOrder, _mtx_connector_v1_HistoryOrder__Output>
        HistoryReply: MessageTypeDefinition<_mtx_connector_v1_HistoryReply, _mtx_connector_v1_HistoryReply__Output>
        HistoryRequest: MessageTypeDefinition<_mtx_connector_v1_HistoryRequest, _mtx_connector_v1_HistoryRequest__Output>
        InspectReply: MessageTypeDefinition<_mtx_connector_v1_InspectReply, _mtx_connector_v1_InspectReply__Output>
        InspectRequest: MessageTypeDefinition<_mtx_connector_v1_InspectRequest, _mtx_connector_v1_InspectRequest__Output>
        LegResult: MessageTypeDefinition<_mtx_connector_v1_LegResult, _mtx_connector_v1_LegResult__Output>
        LookupEntry: MessageTypeDefinition<_mtx_connector_v1_LookupEntry, _mtx_connector_v1_LookupEntry__Output>
        LookupReply: MessageTypeDefinition<_mtx_connector_v1_LookupReply, _mtx_connector_v1_LookupReply__Output>
        LookupRequest: MessageTypeDefinition<_mtx_connector_v1_LookupRequest, _mtx_connector_v1_LookupRequest__Output>
        MarginCheck: MessageTypeDefinition<_mtx_connector_v1_MarginCheck, _mtx_connector_v1_MarginCheck__Output>
        MarginResult: MessageTypeDefinition<_mtx_connector_v1_MarginResult, _mtx_connector_v1_MarginResult__Output>
        ModifyChange: MessageTypeDefinition<_mtx_connector_v1_ModifyChange, _mtx_connector_v1_ModifyChange__Output>
        ModifyReply: MessageTypeDefinition<_mtx_connector_v1_ModifyReply, _mtx_connector_v1_ModifyReply__Output>
        ModifyRequest: MessageTypeDefinition<_mtx_connector_v1_ModifyRequest, _mtx_connector_v1_ModifyRequest__Output>
        ModifyTicketResult: MessageTypeDefinition<_mtx_connector_v1_ModifyTicketResult, _mtx_connector_v1_ModifyTicketResult__Output>
        OpenPosition: MessageTypeDefinition<_mtx_connector_v1_OpenPosition, _mtx_connector_v1_OpenPosition__Output>
        OrderLeg: MessageTypeDefinition<_mtx_connector_v1_OrderLeg, _mtx_connector_v1_OrderLeg__Output>
        PingReply: MessageTypeDefinition<_mtx_connector_v1_PingReply, _mtx_connector_v1_PingReply__Output>
        PingRequest: MessageTypeDefinition<_mtx_connector_v1_PingRequest, _mtx_connector_v1_PingRequest__Output>
        PlaceReply: MessageTypeDefinition<_mtx_connector_v1_PlaceReply, _mtx_connector_v1_PlaceReply__Output>
        PlaceRequest: MessageTypeDefinition<_mtx_connector_v1_PlaceRequest, _mtx_connector_v1_PlaceRequest__Output>
        PositionsReply: MessageTypeDefinition<_mtx_connector_v1_PositionsReply, _mtx_connector_v1_PositionsReply__Output>
        PositionsRequest: MessageTypeDefinition<_mtx_connector_v1_PositionsRequest, _mtx_connector_v1_PositionsRequest__Output>
        StateReply: MessageTypeDefinition<_mtx_connector_v1_StateReply, _mtx_connector_v1_StateReply__Output>
        StateRequest: MessageTypeDefinition<_mtx_connector_v1_StateRequest, _mtx_connector_v1_StateRequest__Output>
        SymbolSpecification: MessageTypeDefinition<_mtx_connector_v1_SymbolSpecification, _mtx_connector_v1_SymbolSpecification__Output>
        TicketResult: MessageTypeDefinition<_mtx_connector_v1_TicketResult, _mtx_connector_v1_TicketResult__Output>
      }
    }
  }
}

