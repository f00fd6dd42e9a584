import { claimKeyPattern, type ClaimStore } from './claims';

/** What a claim decided: send (first to claim), never send (claimed before), or send nothing (no claim store). */
export type ClaimState = 'claimed' | 'duplicate' | 'unavailable';

/**
 * One claim for a whole account message instead of one per leg or ticket (docs/architecture.md, "An order batch"): a JetStream round trip
 * per message. Safe because a message is a unit: execution sends all of an account's legs of a batch in one
 * message, and the same batch again (an Idempotency-Key retry) as the same message. A message that was claimed
 * before sends nothing at all, so even a leg it carried that the first did not could only be left unsent,
 * never sent twice. The claim is taken lazily, once, when the first leg that passed its checks needs it, so a
 * message whose legs are all refused locally claims nothing.
 */
export class MessageClaim {
  private decided: Promise<ClaimState> | undefined;

  constructor(
    private readonly claims: ClaimStore,
    readonly key: string,
    /** Until when a claim store that is briefly unavailable (a leader election) is waited for. */
    private readonly retryUntilUnixMs: number,
    private readonly onUnavailable: (error: unknown) => void,
  ) {}

  state(): Promise<ClaimState> {
    this.decided ??= this.claims.claim(this.key, this.retryUntilUnixMs).then(
      (claimed) => (claimed ? 'claimed' : 'duplicate'),
      (error: unknown) => {
        this.onUnavailable(error);
        return 'unavailable';
      },
    );
    return this.decided;
  }
}

/**
 * A trade call sent this close to its request's deadline would likely be answered after the requester gave up,
 * leaving the leg `unknown`; a claim store still unavailable then is better answered `unavailable` (not sent).
 */
export const claimSendReserveMs = 1_000;

/** Until when a message's claim may wait for the claim store: its wait setting, capped by the deadline's reserve. */
export function claimRetryUntil(nowUnixMs: number, deadlineUnixMs: number, claimWaitMs: number): number {
  const byWait = nowUnixMs + claimWaitMs;
  return deadlineUnixMs > 0 ? Math.min(byWait, deadlineUnixMs - claimSendReserveMs) : byWait;
}

/**
 * The claim key of a place message: its batch and account. Undefined when the message cannot be claimed as a
 * whole (no batch id, or a leg whose client id is not of that batch): then each leg is claimed on its own.
 */
export function placeMessageClaimKey(request: {
  batch_id?: string;
  account_id: string;
  legs: Array<{ client_id: string }>;
}): string | undefined {
  if (!request.batch_id) return undefined;
  const prefix = `${request.batch_id}-`;
  if (!request.legs.every((leg) => leg.client_id.startsWith(prefix))) return undefined;
  const key = `${request.batch_id}-p-${request.account_id}`;
  return claimKeyPattern.test(key) ? key : undefined;
}
