import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../telemetry/logger';

/**
 * A logger whose lines tests read back parsed, and which counts the child loggers made from it or from any of its
 * children (children inherit their parent's `child`, so the count covers them, each keeping its own bindings).
 */
export function capturedLogger(
  service: string,
  level = 'info',
): { lines: Array<Record<string, unknown>>; logger: Logger; childrenMade: () => number } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  const logger = createLogger(service, { level }, stream);
  let made = 0;
  const child = logger.child;
  logger.child = function (this: Logger, ...args: Parameters<Logger['child']>) {
    made += 1;
    return child.apply(this, args);
  } as Logger['child'];
  return { lines, logger, childrenMade: () => made };
}
