import type { Clock } from '@mtx/shared/clock';
import { systemClock } from '@mtx/shared/clock';
import { customerEventChannel } from '@mtx/shared/customer-events';
import { startGrpcServer, type GrpcServerHandle } from '@mtx/shared/grpc';
import { grpcServices } from '@mtx/shared/grpc-services';
import { startGrace, type ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import type { NatsConnection } from '@mtx/shared/nats';
import { announce, endpointChanged } from '@mtx/shared/announcements';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { createSecretBox, parseSecretKey } from '@mtx/shared/secret-box';
import { Dispatcher } from './app/delivery';
import { Endpoints } from './app/endpoints';
import { EventLog } from './app/event-log';
import { Intake } from './app/intake';
import { Leadership } from './app/leadership';
import { TestSender } from './app/test-send';
import { systemResolve } from './clients/public-lookup';
import { createWebhookSender, type WebhookSender } from './clients/webhook-sender';
import { developmentWebhookSecretKey, type NotificationsConfig } from './config';
import type { Resolve } from './domain/url-policy';
import { createNotificationsGrpcImplementation } from './handlers/grpc';
import { createNotificationsStore, type NotificationsStore } from './store/notifications-store';

export interface NotificationsApp extends ServiceApp {
  store: NotificationsStore;
  events: EventLog;
  endpoints: Endpoints;
  dispatcher: Dispatcher;
  readonly port: number;
}

/**
 * Builds the notifier without serving: `start` makes sure the NOTIFY stream and its consumer exist, serves gRPC
 * (endpoints and the event list, on every replica) and competes for the lead: the leader takes events off the
 * stream and delivers them to every enabled endpoint.
 */
export function createNotificationsApp(options: {
  config: NotificationsConfig;
  database: Db;
  nats: NatsConnection;
  logger: Logger;
  clock?: Clock;
  resolve?: Resolve;
  sender?: WebhookSender;
  random?: () => number;
}): NotificationsApp {
  const { config, database, nats, logger } = options;
  const clock = options.clock ?? systemClock;
  const nowMs = () => clock.now().getTime();
  if (config.WEBHOOK_SECRET_KEY === developmentWebhookSecretKey)
    logger.warn('WEBHOOK_SECRET_KEY is the development key; set your own outside development');
  if (config.WEBHOOKS_ALLOW_PRIVATE) logger.warn('WEBHOOKS_ALLOW_PRIVATE is set: endpoints may point at private addresses');
  const store = createNotificationsStore(database);
  const secrets = createSecretBox(parseSecretKey(config.WEBHOOK_SECRET_KEY, 'WEBHOOK_SECRET_KEY'));
  const events = new EventLog(store, nowMs);
  const resolve = options.resolve ?? systemResolve;
  const sender =
    options.sender ??
    createWebhookSender({
      allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE,
      resolve,
      connectionsPerOrigin: config.WEBHOOK_CUSTOMER_DELIVERIES_IN_FLIGHT_MAX,
    });
  const channel = customerEventChannel(config.MONGODB_DATABASE_PREFIX);
  // Every replica hears of an endpoint changed on any of them; the leader follows it at once.
  const endpointAnnouncement = endpointChanged(channel);
  let dispatcher: Dispatcher | undefined;
  const endpoints = new Endpoints({
    store,
    secrets,
    events,
    resolve,
    allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE,
    endpointsPerCustomerMax: config.WEBHOOK_ENDPOINTS_PER_CUSTOMER_MAX,
    nowMs,
    onChange: (endpoint) => {
      dispatcher?.follow(endpoint);
      announce(nats, endpointAnnouncement, { endpointId: endpoint._id });
    },
  });
  dispatcher = new Dispatcher({
    store,
    events,
    sender,
    secrets,
    logger,
    nowMs,
    ...(options.random ? { random: options.random } : {}),
    settings: {
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
      retryForMs: config.WEBHOOK_RETRY_FOR_MS,
      inFlightMax: config.WEBHOOK_DELIVERIES_IN_FLIGHT_MAX,
      customerInFlightMax: config.WEBHOOK_CUSTOMER_DELIVERIES_IN_FLIGHT_MAX,
    },
    disable: async (endpoint, reason) => {
      logger.warn({ endpoint_id: endpoint._id, customer_id: endpoint.customer_id, reason }, 'webhook endpoint disabled');
      await endpoints.disable(endpoint, reason);
    },
  });
  const deliveries = dispatcher;
  const tests = new TestSender({ nats, channel, endpoints, nowMs });
  let intake: Intake | undefined;
  const newIntake = () =>
    new Intake({
      nats,
      channel,
      store,
      events,
      logger,
      replicas: config.NOTIFY_STREAM_REPLICAS,
      onRecorded: (customerId) => deliveries.wakeCustomer(customerId),
    });
  const leadership = new Leadership({
    nats,
    bucket: `${channel.stream}_leader`,
    leaseMs: config.NOTIFY_LEADER_LEASE_MS,
    replicas: config.NOTIFY_STREAM_REPLICAS,
    logger,
    onLead: async () => {
      deliveries.start(await endpoints.enabled());
      intake = newIntake();
      intake.start();
    },
    onStepDown: async () => {
      await intake?.stop();
      intake = undefined;
      deliveries.stop();
    },
  });
  // A lost announcement is made up for by a scan of the enabled endpoints now and then.
  const rescan = new PeriodicJob({
    name: 'webhook-endpoints-rescan',
    intervalMs: config.NOTIFY_ENDPOINTS_RESCAN_MS,
    logger,
    work: async () => {
      if (leadership.isLeader) deliveries.reconcile(await endpoints.enabled());
    },
  });
  let endpointChanges: { unsubscribe(): void } | undefined;
  let server: GrpcServerHandle | undefined;

  return {
    store,
    events,
    endpoints,
    dispatcher: deliveries,
    get port() {
      return server?.port ?? 0;
    },
    async start() {
      await newIntake().ensureStream();
      endpointChanges = nats.subscribe(endpointAnnouncement.subject, {
        callback: (error, message) => {
          const changed = error ? null : endpointAnnouncement.decode(message.data);
          if (!changed || !leadership.isLeader) return;
          void store.endpoints
            .findOne({ _id: changed.endpointId })
            .then((endpoint) => endpoint && deliveries.follow(endpoint))
            .catch((failure: unknown) => logger.warn({ err: failure }, 'could not follow an endpoint change; the rescan will'));
        },
      });
      await leadership.start();
      rescan.start();
      server = await startGrpcServer(
        [
          {
            ...grpcServices.notifications,
            implementation: createNotificationsGrpcImplementation(
              { endpoints, events, tests, retentionMs: config.EVENTS_RETENTION_DAYS * 24 * 3_600_000 },
              logger,
            ),
          },
        ],
        `${config.HOST}:${config.GRPC_PORT}`,
      );
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      await server?.close(grace.remainingMs);
      await grace.within(rescan.stop());
      endpointChanges?.unsubscribe();
      // Deliveries cut short are retried by the next leader: an event is marked delivered only once it was.
      await grace.within(leadership.stop());
      await grace.within(sender.close());
    },
  };
}
