import { systemClock, type Clock } from '@mtx/shared/clock';
import { startGrpcServer, type GrpcServerHandle } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import type { BrokerSimConfig } from './config';
import { Broker } from './app/broker';
import type { PriceFeed } from './domain/prices';
import { createBrokerSimGrpcImplementation } from './handlers/grpc';
import { buildControlApi, type ControlApi } from './handlers/http';
import { FileJournal } from './store/journal';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';

export interface BrokerSimApp {
  broker: Broker;
  control: ControlApi;
  /** Serves gRPC and the control API (the journal was loaded at creation); ports 0 pick free ones. */
  listen(grpcPort: number, httpPort: number, host?: string): Promise<{ grpcPort: number; httpPort: number }>;
  close(graceMs?: number): Promise<void>;
}

/** Opens the journal at `journalFile` and rebuilds the brokers' state from it; nothing listens yet. */
export async function createBrokerSimApp(options: {
  config: Pick<BrokerSimConfig, 'BROKER_SIM_LATENCY_MS' | 'PRICE_TICK_MS'>;
  journalFile: string;
  logger: Logger;
  clock?: Clock;
  prices?: PriceFeed;
}): Promise<BrokerSimApp> {
  const { config, logger } = options;
  const journal = await FileJournal.open(options.journalFile, logger);
  const broker = new Broker({
    journal,
    clock: options.clock ?? systemClock,
    logger,
    latencyMs: config.BROKER_SIM_LATENCY_MS,
    ...(options.prices ? { prices: options.prices } : {}),
  });
  broker.load();
  const grpcService = createBrokerSimGrpcImplementation(broker, logger);
  const control = buildControlApi(broker, logger, async () => journal.healthy, {
    stats: grpcService.terminalStats,
    disconnect: () => grpcService.drainTerminals(0),
  });
  let grpcServer: GrpcServerHandle | undefined;
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
    async listen(grpcPort, httpPort, host = '0.0.0.0') {
      grpcServer = await startGrpcServer(
        [{ ...grpcServices.brokerSim, implementation: grpcService.implementation }],
        `${host}:${grpcPort}`,
      );
      await control.listen({ port: httpPort, host });
      const address = control.server.address();
      if (config.PRICE_TICK_MS > 0) {
        market.start();
      }
      return { grpcPort: grpcServer.port, httpPort: typeof address === 'object' && address ? address.port : httpPort };
    },
    async close(graceMs = 5_000) {
      await market.stop();
      // Together: the server stops taking new calls and streams while the open terminal streams are ended.
      await Promise.all([grpcServer?.close(graceMs), grpcService.drainTerminals(graceMs)]);
      await control.close();
      await journal.close();
    },
  };
}
