import type { Logger } from './logger';
import { shutdownInstrumentation } from './instrumentation';

/**
 * Runs `close` on SIGTERM or SIGINT, once, and exits. A second signal or a close that overruns the grace
 * forces the exit, so an orchestrator never waits forever.
 */
function handleShutdownSignals(logger: Logger, close: () => Promise<void>, graceMs = 10_000): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown overran its grace, exiting');
      process.exit(1);
    }, graceMs + 2_000);
    force.unref();
    close()
      .then(() => shutdownInstrumentation())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
}

/** What a booted service hands its main: how to stop it within a grace period. */
export interface RunningService {
  /** How long a stop may take before the process exits anyway (SHUTDOWN_GRACE_MS). */
  graceMs: number;
  /** Stops taking work, lets work in flight finish within `graceMs`, then closes connections. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Every service's main: boots it (config, dependencies, servers), reports a failed boot with a readable error and
 * a non-zero exit, and stops it once on SIGTERM or SIGINT within its grace.
 */
export function runService(logger: Logger, boot: () => Promise<RunningService>): void {
  boot().then(
    (running) => handleShutdownSignals(logger, () => running.stop(running.graceMs), running.graceMs),
    (error: unknown) => {
      logger.fatal({ err: error }, 'failed to start');
      process.exit(1);
    },
  );
}
