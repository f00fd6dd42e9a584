import { systemClock, type Clock } from '@mtx/shared/clock';
import { startGrpcServer, type GrpcServerHandle } from '@mtx/shared/grpc';
import { closeHttpWithin, listeningPort, startGrace, type ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { BrokerSimConfig } from './config';
import { Broker } from './app/broker';
import type { PriceFeed } from './domain/prices';
import { createBrokerSimGrpcImplementation } from './handlers/grpc';
import { buildControlApi, type ControlApi } from './handlers/http';
import { FileJournal } from './store/journal';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';

/** `start` loads the journal, then serves gRPC and the control API on HOST; ports 0 pick free ones. */
export interface BrokerSimApp extends ServiceApp {
  broker: Broker;
  control: ControlApi;
  /** The ports it serves on, once started. */
  readonly ports: { grpcPort: number; httpPort: number };
}

/**
 * Wires broker-sim over the journal at `journalFile` without reading it; `start` rebuilds the brokers' state from
 * it before serving.
 */
export function createBrokerSimApp(options: {
  config: Pick<BrokerSimConfig, 'BROKER_SIM_LATENCY_MS' | 'PRICE_TICK_MS' | 'GRPC_PORT' | 'HTTP_PORT' | 'HOST'> &
    Partial<Pick<BrokerSimConfig, 'BROKER_SIM_SESSION_IDLE_MS'>>;
  journalFile: string;
  logger: Logger;
  clock?: Clock;
  prices?: PriceFeed;
}): BrokerSimApp {
  const { config, logger } = options;
  const journal = new FileJournal(options.journalFile, logger);
  const broker = new Broker({
    journal,
    clock: options.clock ?? systemClock,
    logger,
    latencyMs: config.BROKER_SIM_LATENCY_MS,
    ...(config.BROKER_SIM_SESSION_IDLE_MS ? { sessionIdleMs: config.BROKER_SIM_SESSION_IDLE_MS } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  });
  const grpcService = createBrokerSimGrpcImplementation(broker, logger);
  const control = buildControlApi(broker, logger, async () => journal.healthy, {
    stats: grpcService.terminalStats,
    disconnect: () => grpcService.drainTerminals(0),
  });
  let loaded = false;
  let grpcServer: GrpcServerHandle | undefined;
  let ports = { grpcPort: 0, httpPort: 0 };
  // A slow journal must not pile ticks up: the next tick is scheduled once the previous one has applied.
  const market = new PeriodicJob({
    name: 'market tick',
    intervalMs: config.PRICE_TICK_MS,
    logger,
    work: () => {
      broker.prices.tick();
      return broker.applyMarket();
    },
  });

  return {
    broker,
    control,
    get ports() {
      return ports;
    },
    async start() {
      if (!loaded) {
        await journal.load();
        broker.load();
        loaded = true;
      }
      grpcServer = await startGrpcServer(
        [{ ...grpcServices.brokerSim, implementation: grpcService.implementation }],
        `${config.HOST}:${config.GRPC_PORT}`,
      );
      await control.listen({ port: config.HTTP_PORT, host: config.HOST });
      if (config.PRICE_TICK_MS > 0) {
        market.start();
      }
      ports = { grpcPort: grpcServer.port, httpPort: listeningPort(control.server) };
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      await grace.within(market.stop());
      // Together: the server stops taking new calls and streams while the open terminal streams are ended.
      await Promise.all([grpcServer?.close(grace.remainingMs), grpcService.drainTerminals(grace.remainingMs)]);
      await closeHttpWithin(control, grace.remainingMs);
      // Not cut: what is queued is written (each line answers only once on disk), and a restart reopens the file.
      await journal.close();
    },
  };
}
