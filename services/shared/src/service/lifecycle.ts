import type { Server } from 'node:net';
import type { Logger } from '../telemetry/logger';
import { shutdownInstrumentation } from '../telemetry/instrumentation';
import { startOperationsListener, type OperationsListener, type OperationsListenerOptions } from '../telemetry/operations-listener';

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

/**
 * The shape every service's app.ts builds. Creating one connects nothing and serves nothing, so a test can build
 * several on one store and drive them; `start` serves on the configured addresses (port 0 picks a free one) and
 * starts the background work; `stop` undoes it within the grace.
 */
export interface ServiceApp {
  /** Serves on the configured addresses and starts background work; resolves once requests are taken. */
  start(): Promise<void>;
  /**
   * Stops taking work, lets work in flight finish within `graceMs`, then stops background work. Connections the
   * app was given (store, NATS) stay open: they are the caller's to close.
   */
  stop(graceMs: number): Promise<void>;
}

/** What a main hands `runService`: the app, its grace, and what the main itself opened for it. */
export interface BootedService {
  app: ServiceApp;
  /** How long a stop may take before the process exits anyway (SHUTDOWN_GRACE_MS). */
  graceMs: number;
  /** Closes the connections the main opened (store, NATS, gRPC clients), after the app has stopped. */
  release?: () => Promise<void>;
  /** Runs once the app has started, to log where it serves (ports chosen at start are known by then). */
  onStarted?: () => void;
  /**
   * The operations listener (metrics, probes) on METRICS_PORT, started once the app serves (so its /healthz means
   * the process is up and serving) and closed after the app has stopped. Host defaults to 0.0.0.0 (the scraper and
   * the probes come from outside the pod; the ingress never routes to this port).
   */
  operations?: Omit<OperationsListenerOptions, 'host'> & { host?: string };
}

/**
 * Every service's main: builds it (config, dependencies, app), starts it, reports a failed boot with a readable
 * error and a non-zero exit, and stops it once on SIGTERM or SIGINT within its grace.
 */
export function runService(logger: Logger, boot: () => Promise<BootedService>): void {
  const started = async () => {
    const booted = await boot();
    try {
      await booted.app.start();
    } catch (error) {
      await booted.release?.().catch(() => undefined);
      throw error;
    }
    let operations: OperationsListener | undefined;
    try {
      if (booted.operations) operations = await startOperationsListener({ host: '0.0.0.0', ...booted.operations });
    } catch (error) {
      await booted.app.stop(booted.graceMs).catch(() => undefined);
      await booted.release?.().catch(() => undefined);
      throw error;
    }
    return { booted, operations };
  };
  started().then(
    ({ booted, operations }) => {
      booted.onStarted?.();
      if (operations) logger.info({ metrics_port: operations.port }, 'operations listener (metrics, probes) started');
      handleShutdownSignals(
        logger,
        async () => {
          await booted.app.stop(booted.graceMs);
          await operations?.close();
          await booted.release?.();
        },
        booted.graceMs,
      );
    },
    (error: unknown) => {
      logger.fatal({ err: error }, 'failed to start');
      process.exit(1);
    },
  );
}

/** The port a listening server got (the configured one, or the free one port 0 picked); 0 before it listens. */
export function listeningPort(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * Closes an HTTP app (Fastify) within `graceMs`: it stops accepting, requests in flight finish, and whatever
 * connection is still open when the grace ends is cut, so `stop(graceMs)` never waits on a slow client.
 */
export async function closeHttpWithin(
  app: { close(): PromiseLike<unknown>; server: { closeAllConnections(): void } },
  graceMs: number,
): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}

/** A stop's grace as a deadline shared by its steps, so the stop as a whole keeps to it. */
export interface Grace {
  /** What is left of the grace (0 once it has ended): the bound to hand the next step that takes one. */
  readonly remainingMs: number;
  /**
   * Waits for `work` while the grace lasts; once it has ended, the work is left to finish (or fail) on its own.
   * A failure within the grace is thrown, as the work's own.
   */
  within(work: PromiseLike<unknown> | undefined): Promise<void>;
}

export function startGrace(graceMs: number): Grace {
  const endsAtMs = performance.now() + graceMs;
  const remaining = () => Math.max(0, endsAtMs - performance.now());
  return {
    get remainingMs() {
      return remaining();
    },
    async within(work) {
      if (!work) return;
      let timer: NodeJS.Timeout | undefined;
      const ended = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, remaining());
      });
      try {
        await Promise.race([work, ended]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
