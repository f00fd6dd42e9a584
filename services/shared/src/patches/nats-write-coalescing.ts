import type { Socket } from 'node:net';
import { holdWritesForTurn } from '../messaging/socket-turn-writes';

/**
 * Patch of: nats (nats.js) 2.x, checked on 2.29.3; it checks the transport's shape and changes nothing on another.
 * Upstream: no issue found; nats.js v3 (the @nats-io/* packages) has its own transport. Goes with the move to
 * v3, or when nats.js writes one turn's frames in one call: test/nats-write-coalescing.test.ts counts the writes.
 *
 * nats.js writes its outbound buffer to the socket in a microtask after the first command queued into it. Node
 * drains the microtask queue after every callback it makes into JavaScript, and a process that answers many
 * requests in one event-loop turn (a connector whose trade server answered ten legs in one read, execution taking
 * twenty replies) publishes each from a callback of its own: one write system call per message. On loopback each
 * write also runs the receiver's TCP path, so the writes, not the messages, set a busy process's CPU.
 *
 * The transport's socket holds its writes for the turn (messaging/socket-turn-writes.ts), so Node hands the
 * turn's writes to the kernel as one `writev`, in order. nats.js itself is unchanged: what it writes and when it flushes are its own; only the
 * system calls are fewer, and nothing waits longer than the rest of its turn.
 */
interface Transport {
  socket?: Socket;
  _send(frame: Uint8Array): unknown;
  [coalesced]?: true;
}

const coalesced = Symbol('mtx.natsWriteCoalescing');

/**
 * Wraps the transport's write (idempotent). Answers false, changing nothing, when the client's transport is not the
 * one this was written against (nats.js 2.x's NodeTransport), so an upgrade falls back to the library's own writes.
 */
export function applyWriteCoalescing(prototype: Transport): boolean {
  if (typeof prototype._send !== 'function') return false;
  if (prototype[coalesced]) return true;
  const send = prototype._send;
  prototype._send = function (this: Transport, frame: Uint8Array) {
    if (this.socket) holdWritesForTurn(this.socket);
    return send.call(this, frame);
  };
  prototype[coalesced] = true;
  return true;
}

// The client's Node transport module: nats.js 2.x has no exports map, and its path has been stable across 2.x.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const transportModule = require('nats/lib/src/node_transport') as { NodeTransport?: { prototype: Transport } };

/** Whether this process's NATS connections coalesce their writes (false: nats.js changed; it then writes as it did). */
export const writesCoalesced = applyWriteCoalescing(transportModule.NodeTransport?.prototype ?? ({} as Transport));
