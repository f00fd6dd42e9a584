import { EventEmitter } from 'node:events';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { TerminalAnswerFrame, TerminalCallFrame } from '@mtx/shared/connector/terminal-frames';
import { TerminalStream, type TerminalDuplex } from '../src/terminal-stream';

/**
 * The terminal stream's framing against a scripted duplex (a pure unit test; the wire against broker-sim is
 * connector-mt5's terminal-stream test): the calls of one turn leave as one message, answers settle their calls
 * by id in any order and any grouping, and a broken stream fails what it had in hand.
 */
class ScriptedDuplex extends EventEmitter {
  written: TerminalCallFrame[][] = [];
  writableEnded = false;
  cancelled = false;

  write(message: { calls: TerminalCallFrame[] }): boolean {
    this.written.push(message.calls);
    return true;
  }

  end(): void {
    this.writableEnded = true;
  }

  cancel(): void {
    this.cancelled = true;
  }

  answer(answers: Array<Partial<TerminalAnswerFrame> & { call_id: number }>): void {
    this.emit('data', { answers: answers.map((answer) => ({ code: 0, message: '', ...answer })) });
  }
}

class CallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function streamWith(): { terminal: TerminalStream; duplexes: ScriptedDuplex[] } {
  const duplexes: ScriptedDuplex[] = [];
  const terminal = new TerminalStream(
    () => {
      const duplex = new ScriptedDuplex();
      duplexes.push(duplex);
      return duplex as unknown as TerminalDuplex;
    },
    (code, message) => new CallError(code, message),
  );
  return { terminal, duplexes };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const session = (index: number) => ({ session_id: `s${index}`, symbol: 'EURUSD' });

describe('TerminalStream framing', () => {
  it('sends the calls made in one turn as one message and settles each by its answer, in any order', async () => {
    const { terminal, duplexes } = streamWith();
    const calls = [0, 1, 2, 3, 4].map((index) => terminal.call<{ digits: number }>('GetSymbol', session(index), 5_000, ROOT_CONTEXT));
    expect(duplexes).toHaveLength(1);
    expect(duplexes[0]!.written).toHaveLength(0);
    await nextTurn();
    const duplex = duplexes[0]!;
    expect(duplex.written).toHaveLength(1);
    const sent = duplex.written[0]!;
    expect(sent.map((frame) => frame.get_symbol)).toEqual([0, 1, 2, 3, 4].map(session));
    expect(new Set(sent.map((frame) => frame.call_id)).size).toBe(5);
    expect(sent.every((frame) => frame.cancel === false && frame.deadline_unix_ms > Date.now())).toBe(true);

    // Answers in two messages, out of order; one of them a failure.
    duplex.answer([
      { call_id: sent[3]!.call_id, get_symbol: { digits: 3 } },
      { call_id: sent[0]!.call_id, get_symbol: { digits: 0 } },
    ]);
    duplex.answer([
      { call_id: sent[4]!.call_id, get_symbol: { digits: 4 } },
      { call_id: sent[1]!.call_id, code: 5, message: 'no such symbol' },
      { call_id: sent[2]!.call_id, get_symbol: { digits: 2 } },
    ]);
    const settled = await Promise.allSettled(calls);
    expect(settled.map((result) => (result.status === 'fulfilled' ? result.value.digits : (result.reason as CallError).code))).toEqual([
      0, 5, 2, 3, 4,
    ]);
    expect(terminal.callsInHand).toBe(0);

    // A later turn's calls are a message of their own on the same stream.
    const later = terminal.call('GetSymbol', session(9), 5_000, ROOT_CONTEXT);
    await nextTurn();
    expect(duplexes).toHaveLength(1);
    expect(duplex.written).toHaveLength(2);
    duplex.answer([{ call_id: duplex.written[1]![0]!.call_id, get_symbol: { digits: 9 } }]);
    expect(await later).toEqual({ digits: 9 });
  });

  it('bounds a message at 256 calls', async () => {
    const { terminal, duplexes } = streamWith();
    const calls = Array.from({ length: 600 }, (_, index) => terminal.call('GetSymbol', session(index), 5_000, ROOT_CONTEXT));
    await nextTurn();
    expect(duplexes[0]!.written.map((message) => message.length)).toEqual([256, 256, 88]);
    duplexes[0]!.answer(duplexes[0]!.written.flat().map((frame) => ({ call_id: frame.call_id, get_symbol: { digits: 5 } })));
    expect((await Promise.all(calls)).length).toBe(600);
  });

  it('sends a cancel frame for a call past its deadline, and fails it with DEADLINE_EXCEEDED', async () => {
    const { terminal, duplexes } = streamWith();
    const call = terminal.call('GetSymbol', session(1), 20, ROOT_CONTEXT);
    await expect(call).rejects.toMatchObject({ code: 4 });
    await nextTurn();
    const frames = duplexes[0]!.written.flat();
    expect(frames).toHaveLength(2);
    expect(frames[1]).toMatchObject({ call_id: frames[0]!.call_id, cancel: true });
  });

  it('fails the calls in hand when the stream breaks, drops what it had not sent, and opens a new stream next', async () => {
    const { terminal, duplexes } = streamWith();
    const sentCall = terminal.call('GetSymbol', session(1), 5_000, ROOT_CONTEXT);
    await nextTurn();
    const unsentCall = terminal.call('GetSymbol', session(2), 5_000, ROOT_CONTEXT);
    duplexes[0]!.emit('error', { details: 'connection reset', message: 'connection reset' });
    await expect(sentCall).rejects.toMatchObject({ code: 14 });
    await expect(unsentCall).rejects.toMatchObject({ code: 14 });
    await nextTurn();
    expect(duplexes[0]!.written).toHaveLength(1);

    const next = terminal.call('GetSymbol', session(3), 5_000, ROOT_CONTEXT);
    await nextTurn();
    expect(duplexes).toHaveLength(2);
    duplexes[1]!.answer([{ call_id: duplexes[1]!.written[0]![0]!.call_id, get_symbol: { digits: 1 } }]);
    expect(await next).toEqual({ digits: 1 });
  });
});
