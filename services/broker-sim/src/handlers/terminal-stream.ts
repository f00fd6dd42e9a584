import { EventEmitter } from 'node:events';
import {
  terminalCallFields,
  type TerminalAnswerFrame,
  type TerminalCallFrame,
  type TerminalField,
} from '@mtx/shared/connector/terminal-frames';
import { grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { TurnBatcher } from '@mtx/shared/turn-batcher';

type UnaryHandler = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => void;

const methodOfField = new Map<string, string>(Object.entries(terminalCallFields).map(([method, field]) => [field, method]));

type TerminalDuplex = grpc.ServerDuplexStream<{ calls: TerminalCallFrame[] }, { answers: TerminalAnswerFrame[] }>;

/** One open terminal stream: its calls still running, so a shutdown can let them answer before it ends the stream. */
interface OpenTerminal {
  stream: TerminalDuplex;
  calls: Map<number, EventEmitter>;
  answers: TurnBatcher<TerminalAnswerFrame>;
}

/**
 * Answers ready in one turn share a message. Bounded so that a message of large answers (positions of big
 * accounts) stays far below the terminal's receive limit.
 */
const answersPerMessageMax = 64;

/**
 * Serves the `Terminal` stream: every frame runs through the same (traced, error-mapping) handler as the unary
 * call of that name, given a call object of its own. So a frame behaves exactly like the unary call: same
 * status codes, same server span (its parent read from the frame's trace context), and the same "caller gave
 * up" signal, raised by a cancel frame, the frame's deadline, or the stream ending. Frames come and go in
 * messages of many (`TerminalCalls`, `TerminalAnswers`): the answers ready in one event-loop turn leave together.
 */
export function createTerminalStreams(unary: grpc.UntypedServiceImplementation, logger: Logger) {
  const open = new Set<OpenTerminal>();
  const counts = {
    terminal_streams_opened: 0,
    terminal_calls: 0,
    terminal_cancels: 0,
    terminal_call_messages: 0,
    terminal_answer_messages: 0,
  };

  /**
   * The caller ends a call at its deadline with a cancel frame; this side's own timer is the safety net for a
   * caller that vanished, so it waits a little longer and the caller's cancel (and its DEADLINE_EXCEEDED) comes
   * first even when both processes are busy.
   */
  const deadlineGraceMs = 250;

  function serve(stream: TerminalDuplex): void {
    const terminal: OpenTerminal = {
      stream,
      calls: new Map(),
      answers: new TurnBatcher((answers) => {
        if (stream.destroyed || stream.writableEnded) return;
        counts.terminal_answer_messages += 1;
        stream.write({ answers });
      }, answersPerMessageMax),
    };
    open.add(terminal);
    counts.terminal_streams_opened += 1;
    let ended = false;
    const finish = () => {
      if (ended) return;
      ended = true;
      open.delete(terminal);
      for (const call of terminal.calls.values()) call.emit('cancelled');
      terminal.calls.clear();
    };
    const answer = (frame: Partial<TerminalAnswerFrame> & { call_id: number }) => {
      if (ended || stream.destroyed || stream.writableEnded) return;
      terminal.answers.push({ code: 0, message: '', ...frame } as TerminalAnswerFrame);
    };

    const take = (frame: TerminalCallFrame) => {
      const callId = Number(frame.call_id);
      if (frame.cancel) {
        counts.terminal_cancels += 1;
        terminal.calls.get(callId)?.emit('cancelled');
        return;
      }
      counts.terminal_calls += 1;
      const field = frame.request;
      const method = field ? methodOfField.get(field) : undefined;
      const handler = method ? (unary[method] as UnaryHandler | undefined) : undefined;
      if (!field || !handler) {
        answer({ call_id: callId, code: grpc.status.UNIMPLEMENTED, message: `no terminal call ${String(field)}` });
        return;
      }
      const metadata = new grpc.Metadata();
      if (frame.traceparent) metadata.set('traceparent', frame.traceparent);
      if (frame.tracestate) metadata.set('tracestate', frame.tracestate);
      const call = Object.assign(new EventEmitter(), { request: frame[field], metadata }) as unknown as grpc.ServerUnaryCall<
        unknown,
        unknown
      > &
        EventEmitter;
      terminal.calls.set(callId, call);
      const remainingMs = Number(frame.deadline_unix_ms) > 0 ? Number(frame.deadline_unix_ms) - Date.now() + deadlineGraceMs : 0;
      // As with a unary call past its deadline, the caller gets DEADLINE_EXCEEDED and never a late answer, even
      // when this timer fires before the caller's own.
      let answered = false;
      const deadline =
        remainingMs > 0
          ? setTimeout(() => {
              if (answered) return;
              answered = true;
              answer({ call_id: callId, code: grpc.status.DEADLINE_EXCEEDED, message: 'deadline exceeded' });
              call.emit('cancelled');
            }, remainingMs)
          : undefined;
      deadline?.unref();
      handler(call, (error, value) => {
        clearTimeout(deadline);
        terminal.calls.delete(callId);
        if (answered) return;
        answered = true;
        if (error) {
          const failed = error as { code?: number; details?: string; message?: string };
          answer({ call_id: callId, code: failed.code ?? grpc.status.UNKNOWN, message: failed.details || failed.message || 'call failed' });
        } else {
          answer({ call_id: callId, [field as TerminalField]: value });
        }
      });
    };

    stream.on('data', (message: { calls?: TerminalCallFrame[] }) => {
      counts.terminal_call_messages += 1;
      for (const frame of message.calls ?? []) take(frame);
    });
    stream.on('end', () => {
      finish();
      terminal.answers.flush();
      stream.end();
    });
    stream.on('error', (error: Error) => {
      logger.debug({ err: { message: error.message } }, 'terminal stream failed');
      finish();
    });
    stream.on('cancelled', finish);
  }

  return {
    handler: serve as grpc.UntypedHandleCall,
    /**
     * For the control API's stats: streams opened and open, calls and cancellations received on them, and the
     * messages that carried the calls and the answers.
     */
    stats: () => ({ ...counts, terminal_streams_open: open.size }),
    /**
     * Lets the calls in hand answer (within the grace), then ends every terminal stream, so the gRPC server's
     * graceful shutdown is not held open by connections that terminals would keep for ever.
     */
    async drain(graceMs: number): Promise<void> {
      const until = Date.now() + graceMs;
      while ([...open].some((terminal) => terminal.calls.size > 0) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 20));
      for (const terminal of [...open]) {
        terminal.answers.flush();
        terminal.stream.end();
      }
    },
  };
}
