import type { Socket } from 'node:net';

/**
 * One socket write per event-loop turn. A process that answers many requests in one turn (a connector sending the
 * legs taken from one NATS read to a terminal, a terminal answering what it finished, nats.js publishing replies)
 * writes each from a callback of its own: one system call per message, and on loopback each runs the receiver's TCP
 * path too. Corking the socket at a turn's first write and uncorking it in the turn's check phase (`setImmediate`,
 * after every callback of the current poll) hands the turn's writes to the kernel as one `writev`, in order, and
 * nothing waits longer than the rest of its turn.
 */

const corked = Symbol('mtx.corkedForTurn');

type TurnSocket = Pick<Socket, 'cork' | 'uncork' | 'destroyed'> & { [corked]?: boolean };

function uncorkAtTurnEnd(socket: TurnSocket): void {
  socket[corked] = false;
  if (!socket.destroyed) socket.uncork();
}

/** Call before each write: the first of a turn corks the socket until the turn's end (idempotent within it). */
export function holdWritesForTurn(socket: TurnSocket): void {
  if (socket.destroyed || socket[corked]) return;
  socket[corked] = true;
  socket.cork();
  setImmediate(uncorkAtTurnEnd, socket);
}

type TextSocket = Pick<Socket, 'write' | 'destroyed' | 'writableEnded'>;

/**
 * A line protocol's frames gathered as one string over a turn and written once at its end (`setImmediate`), for a
 * writer whose frames are text (the terminal bridge): cheaper than corking, which still queues, converts and
 * gathers each write as a chunk of its own. `flush` writes at once, for a last frame before an end.
 */
export class TurnTextWriter {
  private unsent = '';

  constructor(private readonly socket: TextSocket) {}

  add(text: string): void {
    if (this.unsent === '') setImmediate(flushWriter, this);
    this.unsent += text;
  }

  flush(): void {
    const text = this.unsent;
    if (text === '') return;
    this.unsent = '';
    if (!this.socket.destroyed && !this.socket.writableEnded) this.socket.write(text);
  }
}

function flushWriter(writer: TurnTextWriter): void {
  writer.flush();
}
