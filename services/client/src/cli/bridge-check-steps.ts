/**
 * The rows of `bridge:check`: each step sends one or more requests to the terminal, checks the answers and
 * ends as pass (the detail says what was seen), fail (the detail says what was wrong) or skipped (why).
 */
import type { TerminalAnswer } from '@mtx/connector-runtime/bridge/terminal-calls';
import { CheckFailure } from './bridge-check-answers';

export type StepResult = 'pass' | 'fail' | 'skipped';

export interface CheckRow {
  command: string;
  result: StepResult;
  detail: string;
  /** Time to the first answer of the step, in milliseconds; absent when nothing was sent. */
  latencyMs?: number;
}

/** Sends one request to the terminal under check and resolves with its answer (`status=error` included). */
export type TerminalCaller = (command: string, args: Record<string, string | number>) => Promise<TerminalAnswer>;

/** Thrown by a step that cannot run (a step before it failed, a flag not given): the row is skipped. */
export class StepSkipped extends Error {}

export class CheckRun {
  readonly rows: CheckRow[] = [];

  constructor(private readonly callTerminal: TerminalCaller) {}

  get failed(): boolean {
    return this.rows.some((row) => row.result === 'fail');
  }

  /** Records a row that sent nothing. */
  note(command: string, result: StepResult, detail: string): void {
    this.rows.push({ command, result, detail });
  }

  /**
   * Runs one step and records its row; resolves with the step's value, or undefined when it failed or was
   * skipped (a later step that needs the value then skips itself).
   */
  async step<Value>(command: string, run: (call: TerminalCaller) => Promise<{ detail: string; value: Value }>): Promise<Value | undefined> {
    let latencyMs: number | undefined;
    const call: TerminalCaller = async (name, args) => {
      const startedAt = performance.now();
      try {
        return await this.callTerminal(name, args);
      } finally {
        latencyMs ??= Math.round(performance.now() - startedAt);
      }
    };
    try {
      const { detail, value } = await run(call);
      this.rows.push(withLatency({ command, result: 'pass', detail }, latencyMs));
      return value;
    } catch (error) {
      const skipped = error instanceof StepSkipped;
      const detail = error instanceof CheckFailure || skipped ? error.message : `no answer: ${(error as Error).message}`;
      this.rows.push(withLatency({ command, result: skipped ? 'skipped' : 'fail', detail }, latencyMs));
      return undefined;
    }
  }
}

function withLatency(row: CheckRow, latencyMs: number | undefined): CheckRow {
  return latencyMs === undefined ? row : { ...row, latencyMs };
}

/** The value a step needs from an earlier one; skips the step when that one did not produce it. */
export function needs<Value>(value: Value | undefined, what: string): Value {
  if (value === undefined) throw new StepSkipped(`skipped: ${what} did not pass`);
  return value;
}
