/**
 * A one-line progress display for long work (waiting for a top-up to be paid, a batch to settle). On a
 * terminal it redraws one line with a spinner and the elapsed time; anywhere else (pipes, CI logs) it
 * prints a line only when the message changes, so logs stay readable.
 */
export interface Progress {
  update(message: string): void;
  /** Ends the display with a final line. */
  succeed(message: string): void;
  fail(message: string): void;
}

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function createProgress(
  stream: NodeJS.WriteStream = process.stderr,
  options: { label?: string; now?: () => number } = {},
): Progress {
  const now = options.now ?? Date.now;
  const startedMs = now();
  const interactive = Boolean(stream.isTTY);
  const prefix = options.label ? `${options.label}: ` : '';
  let message = '';
  let frame = 0;
  let finished = false;
  const elapsed = () => `${((now() - startedMs) / 1000).toFixed(1)} s`;
  const draw = () => {
    stream.write(`\r\u001b[2K${frames[frame % frames.length]} ${prefix}${message} (${elapsed()})`);
    frame++;
  };
  const timer = interactive ? setInterval(draw, 100) : undefined;
  timer?.unref();

  const finish = (symbol: string, text: string) => {
    if (finished) return;
    finished = true;
    if (timer) clearInterval(timer);
    const line = `${symbol} ${prefix}${text} (${elapsed()})`;
    stream.write(interactive ? `\r\u001b[2K${line}\n` : `${line}\n`);
  };

  return {
    update(next) {
      if (finished || next === message) return;
      message = next;
      if (interactive) draw();
      else stream.write(`… ${prefix}${message} (${elapsed()})\n`);
    },
    succeed: (text) => finish('✔', text),
    fail: (text) => finish('✖', text),
  };
}
