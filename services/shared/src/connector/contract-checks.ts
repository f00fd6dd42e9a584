import type { OrderLeg, OrderLeg__Output } from '../generated/proto/mtx/connector/v1/OrderLeg';
import type { PlaceRequest, PlaceRequest__Output } from '../generated/proto/mtx/connector/v1/PlaceRequest';
import type { LegResult, LegResult__Output } from '../generated/proto/mtx/connector/v1/LegResult';
import type { PlaceReply, PlaceReply__Output } from '../generated/proto/mtx/connector/v1/PlaceReply';
import type { CloseSelector, CloseSelector__Output } from '../generated/proto/mtx/connector/v1/CloseSelector';
import type { CloseRequest, CloseRequest__Output } from '../generated/proto/mtx/connector/v1/CloseRequest';
import type { TicketResult, TicketResult__Output } from '../generated/proto/mtx/connector/v1/TicketResult';
import type { CloseReply, CloseReply__Output } from '../generated/proto/mtx/connector/v1/CloseReply';
import type { LookupRequest, LookupRequest__Output } from '../generated/proto/mtx/connector/v1/LookupRequest';
import type { LookupEntry, LookupEntry__Output } from '../generated/proto/mtx/connector/v1/LookupEntry';
import type { LookupReply, LookupReply__Output } from '../generated/proto/mtx/connector/v1/LookupReply';
import type { PingRequest, PingRequest__Output } from '../generated/proto/mtx/connector/v1/PingRequest';
import type { PingReply, PingReply__Output } from '../generated/proto/mtx/connector/v1/PingReply';
import type {
  CloseReplyMessage,
  CloseRequestMessage,
  CloseSelectorMessage,
  LegResultMessage,
  LookupEntryMessage,
  LookupReplyMessage,
  LookupRequestMessage,
  OrderLegMessage,
  PingReplyMessage,
  PingRequestMessage,
  PlaceReplyMessage,
  PlaceRequestMessage,
  TicketResultMessage,
} from './messages';

/**
 * The connector protocol's TypeScript shapes (messages.ts, narrower than the proto: statuses as unions) checked
 * against the types generated from proto/connector/v1/connector.proto, at compile time. A field renamed, added
 * or removed in the proto without the same change in messages.ts fails `tsc`, so the NATS codecs can never
 * encode or decode a shape the proto does not have.
 */

/** Proto3 `optional` adds a `_field` member naming the set field; it is not a field of the message. */
type Fields<T> = Exclude<keyof T, `_${string}`>;

/**
 * `true` when the hand shape has exactly the proto's fields and encodes as the proto's message; otherwise a
 * type that `true` is not assignable to, naming the fields that differ.
 */
type Matches<Hand, Input, Output> = [Exclude<Fields<Output>, keyof Hand>, Exclude<keyof Hand, Fields<Output>>] extends [never, never]
  ? Hand extends Input
    ? true
    : { encodesAsProto: false }
  : { missingInHand: Exclude<Fields<Output>, keyof Hand>; notInProto: Exclude<keyof Hand, Fields<Output>> };

function check<Hand, Input, Output>(matches: Matches<Hand, Input, Output>): Matches<Hand, Input, Output> {
  return matches;
}

/** Evaluated by the compiler only; exported so that it is not dead code to the linter. */
export const connectorContractChecks = {
  orderLeg: check<OrderLegMessage, OrderLeg, OrderLeg__Output>(true),
  placeRequest: check<PlaceRequestMessage, PlaceRequest, PlaceRequest__Output>(true),
  legResult: check<LegResultMessage, LegResult, LegResult__Output>(true),
  placeReply: check<PlaceReplyMessage, PlaceReply, PlaceReply__Output>(true),
  closeSelector: check<CloseSelectorMessage, CloseSelector, CloseSelector__Output>(true),
  closeRequest: check<CloseRequestMessage, CloseRequest, CloseRequest__Output>(true),
  ticketResult: check<TicketResultMessage, TicketResult, TicketResult__Output>(true),
  closeReply: check<CloseReplyMessage, CloseReply, CloseReply__Output>(true),
  lookupRequest: check<LookupRequestMessage, LookupRequest, LookupRequest__Output>(true),
  lookupEntry: check<LookupEntryMessage, LookupEntry, LookupEntry__Output>(true),
  lookupReply: check<LookupReplyMessage, LookupReply, LookupReply__Output>(true),
  pingRequest: check<PingRequestMessage, PingRequest, PingRequest__Output>(true),
  pingReply: check<PingReplyMessage, PingReply, PingReply__Output>(true),
};
