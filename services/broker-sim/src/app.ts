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
import { HostedTerminalFile } from './store/hosted-terminals';
import { TerminalHost } from './app/terminal-host';
import { serveTerminalHost } from './handlers/terminal-host';
import { TerminalFleet } from './terminal/terminal-fleet';
import { addressList, terminalTlsOf } from './config';
import { createHostSeal } from '@mtx/shared/connector/terminal-host';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import type { Subscription } from 'nats';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';

/**
 * `start` loads the journal, then serves gRPC and the control API on HOST (ports 0 pick free ones), connects to
 * NATS, resumes the terminals it hosts and answers the terminal host protocol.
 */
export interface BrokerSimApp extends ServiceApp {
  broker: Broker;
  control: ControlApi;
  /** The development terminal host: the emulated terminals it runs, one per connected account. */
  host: TerminalHost;
  fleet: TerminalFleet;
  /** The ports it serves on, once started. */
  readonly ports: { grpcPort: number; httpPort: number };
}

/**
 * Wires broker-sim over the journal at `journalFile` without reading it; `start` rebuilds the brokers' state from
 * it before serving.
 */
export function createBrokerSimApp(options: {
  config: Pick<
    BrokerSimConfig,
    | 'BROKER_SIM_LATENCY_MS'
    | 'PRICE_TICK_MS'
    | 'GRPC_PORT'
    | 'HTTP_PORT'
    | 'HOST'
    | 'NATS_URL'
    | 'TERMINAL_SUBJECT_ROOT'
    | 'TERMINAL_HOST_SEAL_KEY'
    | 'TERMINAL_CONNECTOR_MT4_ADDRESSES'
    | 'TERMINAL_CONNECTOR_MT5_ADDRESSES'
    | 'TERMINAL_RECONNECT_MAX_MS'
  > &
    Partial<Pick<BrokerSimConfig, 'TERMINAL_TLS_CA_FILE'>> &
    Partial<Pick<BrokerSimConfig, 'BROKER_SIM_SESSION_IDLE_MS'>>;
  journalFile: string;
  /** Where the hosted terminals are kept (terminalsFileOf). */
  terminalsFile: string;
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
  // Read once here, so that a missing CA file fails the start rather than each EA's dial.
  const tls = terminalTlsOf(config);
  const fleet = new TerminalFleet(broker, logger, { backoffMaxMs: config.TERMINAL_RECONNECT_MAX_MS, ...(tls ? { tls } : {}) });
  const host = new TerminalHost({
    broker,
    fleet,
    seal: createHostSeal(config.TERMINAL_HOST_SEAL_KEY),
    store: new HostedTerminalFile(options.terminalsFile),
    connectorAddresses: {
      mt4: addressList(config.TERMINAL_CONNECTOR_MT4_ADDRESSES),
      mt5: addressList(config.TERMINAL_CONNECTOR_MT5_ADDRESSES),
    },
    logger,
  });
  const control = buildControlApi(broker, logger, async () => journal.healthy, {
    stats: () => fleetStats(fleet),
    disconnect: async () => {
      for (const link of fleet.links.values()) link.cut();
    },
    setAnswers: (server, login, answers) => fleet.behaviours.set(server, login, answers),
    answersOf: (server, login) => fleet.behaviours.of(server, login),
    terminalsOf: (server, login) => fleet.terminalsOf(server, login),
  });
  let nats: NatsConnection | undefined;
  let hostSubscriptions: Subscription[] = [];
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
    host,
    fleet,
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
        [{ ...grpcServices.brokerSim, implementation: grpcService }],
        `${config.HOST}:${config.GRPC_PORT}`,
      );
      await control.listen({ port: config.HTTP_PORT, host: config.HOST });
      if (config.PRICE_TICK_MS > 0) {
        market.start();
      }
      ports = { grpcPort: grpcServer.port, httpPort: listeningPort(control.server) };
      const resumed = await host.resume();
      if (resumed > 0) logger.info({ terminals: resumed }, 'hosted terminals resumed');
      nats = await connectNats(config.NATS_URL, 'broker-sim', logger);
      hostSubscriptions = serveTerminalHost(nats, config.TERMINAL_SUBJECT_ROOT, host, logger);
      // Started means the host answers: its subscriptions are live at the server before start resolves, or a
      // request made right after (a test, a stack's first connect) finds no responders on a busy machine.
      await nats.flush();
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      await grace.within(market.stop());
      // The host protocol first: a start in hand is answered before the terminals end.
      await grace.within(Promise.all(hostSubscriptions.map((subscription) => subscription.drain())));
      await Promise.all([grpcServer?.close(grace.remainingMs), fleet.close(grace.remainingMs)]);
      await grace.within(nats?.close() ?? Promise.resolve());
      await closeHttpWithin(control, grace.remainingMs);
      // Not cut: what is queued is written (each line answers only once on disk), and a restart reopens the file.
      await journal.close();
    },
  };
}

/** What the control API's stats show of the hosted terminals. */
function fleetStats(fleet: TerminalFleet): Record<string, number> {
  const links = [...fleet.links.values()];
  return {
    terminals_hosted: links.length,
    terminals_connected: links.filter((link) => link.stats.connected).length,
    terminal_dials: links.reduce((sum, link) => sum + link.stats.dials, 0),
    terminal_welcomes: links.reduce((sum, link) => sum + link.stats.welcomes, 0),
  };
}
