/**
 * The wallet slice of the system for tests and the benchmark: wallet, payments, crypto-sandbox and gateway on
 * the real store over real sockets, plus a billing stand-in (billing is tested on its own; only its
 * GetUpcoming answer matters here). Payments, sandbox and gateway share one ManualClock so quote windows and
 * expiry are tested without waiting; the wallet runs in-process or as a real process (crash tests).
 */
import crypto from 'node:crypto';
import { ManualClock, systemClock, type Clock } from '@mtx/shared/clock';
import { createUnaryClient, startGrpcServer, unaryHandlers, type GrpcServerHandle, type UnaryClient } from '@mtx/shared/grpc';
import { startServiceProcess, type ServiceProcess } from '@mtx/devstack/services';
import { freePort } from '@mtx/devstack/ports';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { announce, announcements } from '@mtx/shared/announcements';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createSandboxApp, signPostback, type SandboxApp } from '../../services/crypto-sandbox/src/app';
import { loadSandboxConfig } from '../../services/crypto-sandbox/src/config';
import { buildGateway } from '../../services/gateway/src/app';
import type { GatewayApp } from '../../services/gateway/src/context';
import { loadGatewayConfig } from '../../services/gateway/src/config';
import { connectGatewayDependencies, type ConnectedGateway } from '../../services/gateway/src/dependencies';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createPaymentsApp, paymentsGrpcBinding, type PaymentsApp } from '../../services/payments/src/app';
import { countUnsettled, readInboxRecord, type InboxRecord } from '../../services/payments/src/clients/inbox';
import { loadPaymentsConfig } from '../../services/payments/src/config';
import { auditLedger, createWalletApp, walletGrpcBinding, type AuditReport, type WalletApp } from '../../services/wallet/src/app';
import { loadWalletConfig } from '../../services/wallet/src/config';
import { grpcServices } from '@mtx/shared/grpc-services';

export const testPostbackSecret = 'wallet-stack-postback-secret';

export interface UpcomingItemMessage {
  when: string;
  amount_eur_cents: number;
  kind: string;
  label: string;
}

export interface StackCustomer {
  customer_id: string;
  full_key: string;
  read_key: string;
}

/**
 * How long an unsettled inbox record waits for redelivery in these stacks (every payments replica of a stack
 * shares the inbox's consumer, so replicas that tests add take the same value).
 */
export const inboxSweepIntervalMs = 1_000;

export interface WalletStack {
  mongo: MongoClient;
  prefix: string;
  clock: ManualClock;
  gatewayUrl: string;
  sandboxUrl: string;
  gateway: GatewayApp;
  payments: PaymentsApp;
  sandbox: SandboxApp;
  walletClient: UnaryClient<any>;
  paymentsClient: UnaryClient<any>;
  /** The NATS connection the in-process wallet and payments announce their changes on (the gateway has its own). */
  nats: NatsConnection;
  walletProcess?: ServiceProcess;
  walletApp?: WalletApp;
  /** What the billing stand-in answers GetUpcoming with, per customer (use setUpcoming to change it). */
  upcoming: Map<string, UpcomingItemMessage[]>;
  /** Changes the billing stand-in's answer and announces the change as billing does. */
  setUpcoming(customerId: string, items: UpcomingItemMessage[]): void;
  /** GetUpcoming calls the billing stand-in has answered. */
  upcomingCalls(): number;
  newCustomer(name?: string): Promise<StackCustomer>;
  /** Calls the gateway as a client would. */
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** Calls the sandbox (provider control and merchant API). */
  sandboxRequest(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Signs and sends a postback as the provider would (for replay and tampering tests). */
  /** payments' own hook listener, where the sandbox delivers (the gateway's route passes postbacks on to it). */
  paymentsHooksUrl: string;
  /** POSTs a postback as the provider would: to payments' hook listener, or `via: 'gateway'`. */
  postRawPostback(body: string, signature?: string | null, via?: 'payments' | 'gateway'): Promise<{ status: number; body: any }>;
  sign(body: string): string;
  /** The postback inbox's record of a transaction (`<provider>:<transaction id>`), or null. */
  inboxRecord(id: string): Promise<InboxRecord | null>;
  /** Inbox records not credited yet. */
  inboxUnsettled(): Promise<number>;
  audit(): Promise<AuditReport>;
  ledgerEntries(customerId: string): Promise<number>;
  close(): Promise<void>;
}

export interface WalletStackOptions {
  /** `process`: the wallet runs as a real child process (tsx), as in production. */
  wallet?: 'in-process' | 'process';
  walletEnv?: Record<string, string>;
  /** Billing stand-in: `stub` answers GetUpcoming from `upcoming`; `unimplemented` has no methods; `down` is not started. */
  billing?: 'stub' | 'unimplemented' | 'down';
  sandboxEnv?: Record<string, string>;
  /** Payments' settings; a function is given the sandbox's and the hook listener's addresses (a provider API under the sandbox). */
  paymentsEnv?: Record<string, string> | ((addresses: { sandboxUrl: string; paymentsHooksUrl: string }) => Record<string, string>);
  gatewayEnv?: Record<string, string>;
  /**
   * Keep the gateway's GET /v1/wallet read model on (it is off by default here: tests change state behind the
   * gateway's back, e.g. credits through walletClient, and read at once; the announcements that would refresh it
   * take a few milliseconds).
   */
  readModel?: boolean;
  start?: string;
  /** Shared clock; defaults to a ManualClock at `start`. The benchmark passes the system clock. */
  clock?: ManualClock;
  /** Use the system clock everywhere (benchmark). */
  realTime?: boolean;
  mongodbUrl: string;
  natsUrl: string;
  logLevel?: string;
  /** Emits the driver's command events on `mongo` (profiling). */
  monitorCommands?: boolean;
}

export async function startWalletStack(options: WalletStackOptions): Promise<WalletStack> {
  const mongo = await connectMongo(options.mongodbUrl, { maxPoolSize: 64, monitorCommands: options.monitorCommands === true });
  const prefix = testDatabasePrefix('wstack');
  const clock = options.clock ?? new ManualClock(options.start ?? '2027-03-01T10:00:00Z');
  const sharedClock: Clock = options.realTime ? systemClock : clock;
  const logLevel = options.logLevel ?? 'silent';
  const logger = (name: string) => createLogger(name, { level: logLevel as 'silent' });
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  // Run last, after every service has stopped.
  closers.push(() => mongo.close());
  closers.push(async () => {
    for (const service of ['wallet', 'payments', 'crypto-sandbox', 'gateway'])
      await mongo
        .db(databaseName(prefix, service))
        .dropDatabase()
        .catch(() => undefined);
  });
  try {
    // Wallet and payments announce their changes, as in production.
    const nats = await connectNats(options.natsUrl, 'wallet-stack', logger('nats'));
    closers.push(() => nats.drain().catch(() => undefined));
    const gatewayPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;

    // Wallet.
    let walletAddress: string;
    let walletProcess: ServiceProcess | undefined;
    let walletApp: WalletApp | undefined;
    if (options.wallet === 'process') {
      walletProcess = await startServiceProcess({
        name: 'wallet',
        env: {
          ...process.env,
          MONGODB_URL: options.mongodbUrl,
          NATS_URL: options.natsUrl,
          MONGODB_DATABASE_PREFIX: prefix,
          LOG_LEVEL: logLevel === 'silent' ? 'error' : logLevel,
          ...options.walletEnv,
        },
      });
      walletAddress = walletProcess.address;
      const started = walletProcess;
      closers.push(() => started.stop(5_000));
    } else {
      const config = loadWalletConfig({ MONGODB_DATABASE_PREFIX: prefix, GRPC_HOST: '127.0.0.1', GRPC_PORT: '0', ...options.walletEnv });
      walletApp = await createWalletApp({
        config,
        database: mongo.db(databaseName(prefix, 'wallet')),
        clock: sharedClock,
        logger: logger('wallet'),
        nats,
        backgroundWork: false,
      });
      await walletApp.start();
      walletAddress = `127.0.0.1:${walletApp.port}`;
      const app = walletApp;
      closers.push(() => app.stop(1_000));
    }
    const walletClient = createUnaryClient<any>(walletGrpcBinding.protoFile, walletGrpcBinding.serviceName, walletAddress, 10_000);
    closers.push(async () => walletClient.close());

    // Billing stand-in.
    const upcoming = new Map<string, UpcomingItemMessage[]>();
    let upcomingCalls = 0;
    let billingAddress = `127.0.0.1:${await freePort()}`;
    if (options.billing !== 'down') {
      const implementation =
        options.billing === 'unimplemented'
          ? {}
          : unaryHandlers({
              GetUpcoming: async (request: { customer_id: string }) => {
                upcomingCalls += 1;
                const items = upcoming.get(request.customer_id) ?? [];
                return { items, total_eur_cents: items.reduce((sum, item) => sum + item.amount_eur_cents, 0) };
              },
            });
      const billing: GrpcServerHandle = await startGrpcServer(
        [{ protoFile: 'billing/v1/billing.proto', serviceName: 'mtx.billing.v1.BillingService', implementation }],
        '127.0.0.1:0',
      );
      billingAddress = `127.0.0.1:${billing.port}`;
      closers.push(() => billing.close(1_000));
    }

    // Sandbox provider, posting back to payments' hook listener (the production route).
    const hooksPort = await freePort();
    const paymentsHooksUrl = `http://127.0.0.1:${hooksPort}`;
    const sandboxConfig = loadSandboxConfig({
      MONGODB_DATABASE_PREFIX: prefix,
      GATEWAY_URL: gatewayUrl,
      PAYMENTS_HOOKS_URL: paymentsHooksUrl,
      POSTBACK_SECRET: testPostbackSecret,
      POSTBACK_RETRY_BASE_MS: '50',
      POSTBACK_LATE_DELAY_MS: '300',
      PORT: '0',
      HOST: '127.0.0.1',
      ...options.sandboxEnv,
    });
    const sandbox = await createSandboxApp({
      config: sandboxConfig,
      database: mongo.db(databaseName(prefix, 'crypto-sandbox')),
      clock: sharedClock,
      logger: logger('crypto-sandbox'),
    });
    await sandbox.start();
    const sandboxUrl = `http://127.0.0.1:${sandbox.port}`;
    closers.push(() => sandbox.stop(1_000));

    // Payments.
    const paymentsConfig = loadPaymentsConfig({
      MONGODB_DATABASE_PREFIX: prefix,
      CRYPTO_SANDBOX_URL: sandboxUrl,
      POSTBACK_SECRET: testPostbackSecret,
      WALLET_GRPC_URL: walletAddress,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      HOOKS_HOST: '127.0.0.1',
      HOOKS_PORT: String(hooksPort),
      PAYMENTS_INBOX_SWEEP_INTERVAL_MS: String(inboxSweepIntervalMs),
      ...(typeof options.paymentsEnv === 'function' ? options.paymentsEnv({ sandboxUrl, paymentsHooksUrl }) : options.paymentsEnv),
    });
    const paymentsWallet = createUnaryClient<any>(
      grpcServices.wallet.protoFile,
      grpcServices.wallet.serviceName,
      walletAddress,
      paymentsConfig.WALLET_DEADLINE_MS,
    );
    const payments = await createPaymentsApp({
      config: paymentsConfig,
      database: mongo.db(databaseName(prefix, 'payments')),
      clock: sharedClock,
      logger: logger('payments'),
      wallet: paymentsWallet,
      nats,
      backgroundWork: false,
    });
    await payments.start();
    const paymentsAddress = `127.0.0.1:${payments.port}`;
    closers.push(async () => {
      await payments.stop(1_000);
      paymentsWallet.close();
    });
    const paymentsClient = createUnaryClient<any>(paymentsGrpcBinding.protoFile, paymentsGrpcBinding.serviceName, paymentsAddress, 10_000);
    closers.push(async () => paymentsClient.close());

    // Gateway.
    const gatewayConfig = loadGatewayConfig({
      MONGODB_URL: options.mongodbUrl,
      NATS_URL: options.natsUrl,
      MONGODB_DATABASE_PREFIX: prefix,
      WALLET_GRPC_URL: walletAddress,
      PAYMENTS_GRPC_URL: paymentsAddress,
      BILLING_GRPC_URL: billingAddress,
      EXECUTION_GRPC_URL: `127.0.0.1:${await freePort()}`,
      GRPC_DEADLINE_MS: '5000',
      RATE_LIMIT_OTHER_PER_MINUTE: '1000000',
      LOG_LEVEL: logLevel,
      WALLET_READ_FRESH_MS: options.readModel ? '60000' : '0',
      SUBSCRIPTION_READ_FRESH_MS: options.readModel ? '60000' : '0',
      ...options.gatewayEnv,
    });
    const connected: ConnectedGateway = await connectGatewayDependencies(gatewayConfig, { clock: sharedClock, logger: logger('gateway') });
    const gateway = await buildGateway(connected.dependencies);
    await gateway.listen({ port: gatewayPort, host: '127.0.0.1' });
    closers.push(async () => {
      await gateway.close();
      await connected.close();
    });

    const sign = (body: string) => signPostback(body, testPostbackSecret);
    const paymentsDeployment = paymentsConfig.MONGODB_DATABASE_PREFIX;
    return {
      mongo,
      prefix,
      clock,
      gatewayUrl,
      sandboxUrl,
      gateway,
      payments,
      sandbox,
      walletClient,
      paymentsClient,
      nats,
      ...(walletProcess ? { walletProcess } : {}),
      ...(walletApp ? { walletApp } : {}),
      upcoming,
      setUpcoming(customerId, items) {
        upcoming.set(customerId, items);
        announce(nats, announcements.billingChanged, { customerId, revision: crypto.randomBytes(6).toString('hex') });
      },
      upcomingCalls: () => upcomingCalls,
      inboxRecord: (id) => readInboxRecord(nats, paymentsDeployment, id),
      inboxUnsettled: () => countUnsettled(nats, paymentsDeployment),
      async newCustomer(name = `Customer ${crypto.randomBytes(3).toString('hex')}`) {
        const { customer_id } = await createCustomer(connected.dependencies.store, name, sharedClock);
        const full = await issueKey(connected.dependencies.store, customer_id, 'full', sharedClock);
        const read = await issueKey(connected.dependencies.store, customer_id, 'read', sharedClock);
        return { customer_id, full_key: full.key, read_key: read.key };
      },
      async request(method, path, requestOptions = {}) {
        const headers: Record<string, string> = { ...requestOptions.headers };
        if (requestOptions.key) headers.authorization = `Bearer ${requestOptions.key}`;
        if (requestOptions.body !== undefined) headers['content-type'] = 'application/json';
        const response = await fetch(`${gatewayUrl}${path}`, {
          method,
          headers,
          ...(requestOptions.body !== undefined
            ? { body: typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body) }
            : {}),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
      },
      async sandboxRequest(method, path, body) {
        const response = await fetch(`${sandboxUrl}${path}`, {
          method,
          headers: { 'x-api-key': sandboxConfig.SANDBOX_API_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000),
        });
        return { status: response.status, body: await response.json() };
      },
      paymentsHooksUrl,
      async postRawPostback(body, signature, via = 'payments') {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        const chosen = signature === undefined ? sign(body) : signature;
        if (chosen !== null) headers['x-signature'] = chosen;
        const response = await fetch(`${via === 'gateway' ? gatewayUrl : paymentsHooksUrl}/v1/hooks/payments/sandbox`, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(30_000),
        });
        return { status: response.status, body: await response.json() };
      },
      sign,
      audit: () => auditLedger(mongo.db(databaseName(prefix, 'wallet'))),
      ledgerEntries: (customerId: string) =>
        mongo.db(databaseName(prefix, 'wallet')).collection('ledger').countDocuments({ wallet_id: customerId }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
