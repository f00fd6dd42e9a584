/**
 * Patch of: nats (nats.js) 2.x, checked on 2.29.3; it checks RequestOne's shape and changes nothing on another.
 * Upstream: no issue found. Goes with the move to nats.js v3, or when an answered request no longer builds a
 * NatsError: test/nats-request-settling.test.ts counts the errors made.
 *
 * nats.js ends every answered request by calling its cancel(), which rejects the request's (already resolved)
 * promise with a freshly built "cancelled" NatsError: an Error, with its stack captured, made and thrown away
 * for every successful request. In a connector, whose claim of each account message is a JetStream request, that
 * was 8 % of its busy CPU, the largest single item after the garbage collector it fed; execution makes one
 * request per account of every batch.
 *
 * An answered request now skips that rejection and does the rest of cancel() (its timer stopped, its inbox
 * entry removed); a request cancelled before its answer (a timeout, a closed connection) goes through the
 * library's own cancel, error and all.
 */
interface RequestOnePrototype {
  resolver(error: unknown, message: unknown): void;
  cancel(error?: unknown): void;
  [settling]?: true;
}

interface RequestState {
  [answered]?: boolean;
  timer?: { cancel(): void };
  mux: { cancel(request: unknown): void };
}

const settling = Symbol('mtx.natsRequestSettling');
const answered = Symbol('mtx.requestAnswered');

/** Wraps RequestOne's resolver and cancel (idempotent); false, changing nothing, when their shape is not 2.x's. */
export function applyRequestSettling(prototype: RequestOnePrototype): boolean {
  if (typeof prototype.resolver !== 'function' || typeof prototype.cancel !== 'function') return false;
  if (prototype[settling]) return true;
  const resolver = prototype.resolver;
  const cancel = prototype.cancel;
  prototype.resolver = function (this: RequestOnePrototype & RequestState, error, message) {
    this[answered] = true;
    resolver.call(this, error, message);
  };
  prototype.cancel = function (this: RequestOnePrototype & RequestState, error) {
    if (error !== undefined || !this[answered]) {
      cancel.call(this, error);
      return;
    }
    this.timer?.cancel();
    this.mux.cancel(this);
  };
  prototype[settling] = true;
  return true;
}

// The client's request module: nats.js 2.x has no exports map, and its path has been stable across 2.x.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const requestModule = require('nats/lib/nats-base-client/request') as { RequestOne?: { prototype: RequestOnePrototype } };

/** Whether answered requests skip the library's throw-away error (false: nats.js changed; it then behaves as it did). */
export const requestSettlingApplied = applyRequestSettling(requestModule.RequestOne?.prototype ?? ({} as RequestOnePrototype));
