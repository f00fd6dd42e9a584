/**
 * The real system for the fault suite: a FerretDB and a nats-server of its own (so the suite can stop and restart
 * them), every service as a separate process, customers with keys and broker accounts, and the checks run after
 * every fault: the ledger audit and the execution invariants (no client id executed twice at the broker, every
 * `unknown` leg settled, every reported fill backed by a deal).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { startNats, startNatsCluster, startStore, type LocalNatsCluster, type LocalProcess } from '@mtx/devstack/local';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { serviceSpecs, startServiceProcess, startStack, type ServiceName, type ServiceProcess, type Stack } from '@mtx/devstack/services';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { eventually } from '@mtx/shared/testing';
import { createLogger } from '@mtx/shared/logger';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { countUnsettled, readInboxRecord, type InboxRecord } from '../../services/payments/src/clients/inbox';
import { signPostback } from '../../services/crypto-sandbox/src/domain/signing';
import { issueKey } from '../../services/gateway/src/app/customers';
import { createGatewayStore, type GatewayStore } from '../../services/gateway/src/store/gateway-store';
import { openMarkersDatabaseName } from '../../services/execution/src/store/execution-store';
import { clientTag, tagOfComment } from '../../services/connector-runtime/src/bridge/client-tag';
import { sentWith } from '../../services/broker-sim/src/terminal/terminal-account';

/**
 * What names a leg at the broker. Trades reach broker-sim through the terminal bridge, whose EA gives each trade
 * call an id of its own and carries the leg's client id only as the tag at the end of the order's comment
 * (docs/terminal-bridge.md, "Client id in the comment"); so legs and broker records are matched by that tag.
 */
export function brokerKeyOfLeg(clientId: string): string {
  return clientTag(clientId);
}

/** The tag of the leg a broker record (deal or request) was sent for, or its own id when it carries none. */
export function brokerKeyOfRecord(recordClientId: string): string {
  return tagOfComment(sentWith(recordClientId).comment) ?? recordClientId;
}

export const postbackSecret = 'fault-suite-postback-secret-0123456789';
export const walletCapEurCents = 100_000;

/** Broker servers of broker-sim used by the suite, with the symbol each one trades EURUSD as. */
export const brokerServers = [
  { server: 'AlphaFX-Live', platform: 'mt5', symbol: 'EURUSD' },
  { server: 'BetaMarkets-Server', platform: 'mt5', symbol: 'EURUSD.xx' },
  { server: 'GammaTrade-Real', platform: 'mt4', symbol: 'EURUSDm' },
  { server: 'DeltaPrime-ECN', platform: 'mt4', symbol: 'EURUSD-ecn' },
] as const;

export interface TradingAccount {
  id: string;
  platform: 'mt4' | 'mt5';
  server: string;
  login: string;
  symbol: string;
}

export interface Customer {
  id: string;
  fullKey: string;
  readKey: string;
  accounts: TradingAccount[];
}

export interface HttpAnswer {
  status: number;
  body: any;
  headers: Headers;
  /** Set when no HTTP answer came back (refused, reset, timed out): the error's code. */
  networkError?: string;
}

export interface AuditReport {
  ok: boolean;
  wallets_checked: number;
  entries_checked: number;
  breaches: string[];
}

export interface LedgerEntry {
  _id: string;
  wallet_id: string;
  seq: number;
  entry_id: string;
  kind: 'credit' | 'debit';
  amount_eur_cents: number;
  balance_after_eur_cents: number;
  held_after_eur_cents: number;
}

export interface TopupForPostbacks {
  id: number;
  customerId: string;
  invoiceId: string;
  address: string;
  assetCode: string;
  blockchainCode: string;
  amountEurCents: number;
  depositUnits: bigint;
  createdAt: Date;
}

export interface FaultStackOptions {
  label: string;
  /** Extra environment for every service (tuning, fault hooks). */
  env?: Record<string, string>;
  /** NATS as a local JetStream cluster of this many nodes (the claims bucket with 3 copies) instead of one server. */
  natsClusterSize?: number;
  /**
   * Connector replicas per platform the file runs (the stack starts one; the others with startReplica on
   * `stack.terminalPorts`): broker-sim's EAs are given every replica's terminal address from the start.
   */
  connectorReplicas?: Partial<Record<'mt4' | 'mt5', number>>;
}

/** What every service gets unless a test file overrides it: small deadlines, fast background passes, raised rate limits. */
const baseEnvironment: Record<string, string> = {
  LOG_LEVEL: 'warn',
  OTEL_SDK_DISABLED: 'true',
  PROMETHEUS_METRICS: 'false',
  ACCESS_LOG: 'false',
  SHUTDOWN_GRACE_MS: '4000',
  POSTBACK_SECRET: postbackSecret,
  RATE_LIMIT_EXECUTION_PER_MINUTE: '1000000',
  RATE_LIMIT_OTHER_PER_MINUTE: '1000000',
  // Every load worker and fuzzer shares one address here; the per-address limit of failed authentications has
  // tests of its own (services/gateway/test/key-floods.test.ts).
  AUTH_FAILURES_PER_MINUTE: '1000000',
  GRPC_DEADLINE_MS: '5000',
  EXECUTION_DEADLINE_MS: '1500',
  PING_DEADLINE_MS: '1000',
  BROKER_SIM_LATENCY_MS: '2',
  PRICE_TICK_MS: '0',
  BROKER_CALL_DEADLINE_MS: '4000',
  RECONCILE_INTERVAL_MS: '1000',
  RECONCILE_SETTLE_AFTER_MS: '500',
  RECOVERY_AFTER_MS: '2000',
  ACCOUNT_CACHE_MS: '500',
  WALLET_RECOVERY_INTERVAL_MS: '1000',
  SCHEDULER_INTERVAL_MS: '1000',
  // A scheduler that dies holds its lease slot until the slot ends; short slots let a restarted one resume soon.
  SCHEDULER_LEASE_MS: '4000',
  FAILURE_BACKOFF_MS: '500',
  PENDING_PURCHASE_RECOVERY_MS: '20000',
  EXPIRY_INTERVAL_MS: '2000',
  // The postback inbox's sweep: a record left by a crash is delivered again a second after its last delivery.
  PAYMENTS_INBOX_SWEEP_INTERVAL_MS: '1000',
  POSTBACK_RETRY_BASE_MS: '100',
  POSTBACK_TIMEOUT_MS: '3000',
  PROVIDER_ASSETS_CACHE_MS: '60000',
  API_KEY_CACHE_MS: '2000',
};

export class FaultStack {
  readonly directory: string;
  readonly prefix: string;
  readonly logFile: string;
  store!: LocalProcess;
  /** The single nats-server, or the cluster's first node. */
  nats!: LocalProcess;
  private inspector: Promise<NatsConnection> | undefined;
  natsCluster: LocalNatsCluster | undefined;
  stack!: Stack;
  mongo!: MongoClient;
  gatewayStore!: GatewayStore;
  wallet!: UnaryClient<any>;
  execution!: UnaryClient<any>;
  billing!: UnaryClient<any>;
  /** error and fatal lines the services logged (bounded), for the failure report. */
  readonly serviceErrors: string[] = [];
  private readonly logStream: fs.WriteStream;
  private loginSequence = 70_000_000 + crypto.randomInt(1_000_000);
  private readonly options: FaultStackOptions;

  private constructor(options: FaultStackOptions) {
    this.options = options;
    this.directory = fs.mkdtempSync(path.join(os.tmpdir(), `mtx-faults-${options.label}-`));
    this.prefix = `f${options.label.replace(/[^a-z0-9]/gi, '').slice(0, 10)}_`;
    const outputDirectory = path.join(repositoryRoot, 'test', 'output', 'faults');
    fs.mkdirSync(outputDirectory, { recursive: true });
    this.logFile = path.join(outputDirectory, `${options.label}-services.log`);
    this.logStream = fs.createWriteStream(this.logFile, { flags: 'w' });
  }

  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const started = new FaultStack(options);
    try {
      await started.boot();
    } catch (error) {
      await started.close();
      throw error;
    }
    return started;
  }

  private onLine = (service: string, line: string) => {
    this.logStream.write(`${service} ${line}\n`);
    if (/"level":(50|60)/.test(line) && this.serviceErrors.length < 500) this.serviceErrors.push(`${service}: ${line.slice(0, 600)}`);
  };

  private async boot(): Promise<void> {
    const clusterSize = this.options.natsClusterSize ?? 1;
    if (clusterSize > 1) {
      [this.store, this.natsCluster] = await Promise.all([startStore(this.directory), startNatsCluster(this.directory, clusterSize)]);
      this.nats = this.natsCluster.nodes[0]!;
    } else {
      [this.store, this.nats] = await Promise.all([startStore(this.directory), startNats(this.directory)]);
    }
    const clusterEnvironment = this.natsCluster
      ? { CONNECTOR_CLAIMS_REPLICAS: String(Math.min(3, clusterSize)), PAYMENTS_INBOX_REPLICAS: String(Math.min(3, clusterSize)) }
      : {};
    this.stack = await startStack({
      mongodbUrl: this.store.url,
      natsUrl: this.natsCluster?.url ?? this.nats.url,
      dataDirectory: this.directory,
      env: { MONGODB_DATABASE_PREFIX: this.prefix, ...baseEnvironment, ...clusterEnvironment, ...this.options.env },
      onLine: this.onLine,
      ...(this.options.connectorReplicas ? { connectorReplicas: this.options.connectorReplicas } : {}),
    });
    this.mongo = await connectMongo(this.store.url, { maxPoolSize: 16 });
    this.gatewayStore = createGatewayStore(this.mongo.db(databaseName(this.prefix, 'gateway')));
    this.wallet = createUnaryClient<any>('wallet/v1/wallet.proto', 'mtx.wallet.v1.WalletService', this.stack.env.WALLET_GRPC_URL!, 10_000);
    this.execution = createUnaryClient<any>(
      'execution/v1/execution.proto',
      'mtx.execution.v1.ExecutionService',
      this.stack.env.EXECUTION_GRPC_URL!,
      15_000,
    );
    this.billing = createUnaryClient<any>(
      'billing/v1/billing.proto',
      'mtx.billing.v1.BillingService',
      this.stack.env.BILLING_GRPC_URL!,
      10_000,
    );
    await this.control('/control/prices', 'POST', { frozen_all: true });
  }

  get gatewayUrl(): string {
    return this.stack.gatewayUrl;
  }

  get sandboxUrl(): string {
    return this.stack.sandboxUrl;
  }

  service(name: ServiceName | string): ServiceProcess {
    const handle = this.stack.services.get(name);
    if (!handle) throw new Error(`no service ${name} in the stack`);
    return handle;
  }

  /** PIDs of every service process, to prove that a fault did not restart them. */
  pids(): Record<string, number | undefined> {
    return Object.fromEntries([...this.stack.services].map(([name, handle]) => [name, handle.pid]));
  }

  /** Starts one more replica of a service (same environment, a port of its own), stopped with the stack. */
  async startReplica(folder: ServiceName, name: string, extraEnv: Record<string, string> = {}): Promise<ServiceProcess> {
    const handle = await startServiceProcess({ name, folder, env: { ...this.stack.env, ...extraEnv }, onLine: this.onLine });
    this.stack.services.set(name, handle);
    return handle;
  }

  /**
   * Stops a service of the stack and starts it again on its own ports (every other service keeps reaching it) with
   * `extraEnv` over the stack's environment; `{}` puts the stack's own environment back.
   */
  async restartServiceWith(name: ServiceName, extraEnv: Record<string, string>): Promise<ServiceProcess> {
    const current = this.service(name);
    await current.stop();
    const spec = serviceSpecs[name];
    const env: NodeJS.ProcessEnv = { ...this.stack.env, ...extraEnv };
    if (spec.secondaryPortVariable && spec.secondaryAddressVariable)
      env[spec.secondaryPortVariable] = new URL(this.stack.env[spec.secondaryAddressVariable]!).port;
    const handle = await startServiceProcess({ name, folder: name, env, port: current.port, onLine: this.onLine });
    this.stack.services.set(name, handle);
    return handle;
  }

  /** Stops a replica started by startReplica and forgets it (later checks of "every service running" skip it). */
  async stopReplica(name: string): Promise<void> {
    const handle = this.stack.services.get(name);
    this.stack.services.delete(name);
    await handle?.stop();
  }

  // ---- HTTP ----

  async request(
    method: string,
    url: string,
    options: { key?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    try {
      const response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON (a proxy page, a plain-text body): kept as text for the assertion message.
      }
      return { status: response.status, body: parsed, headers: response.headers };
    } catch (error) {
      return { status: 0, body: undefined, headers: new Headers(), networkError: networkErrorCode(error) };
    }
  }

  api(key: string, method: string, pathAndQuery: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer> {
    return this.request(method, `${this.gatewayUrl}${pathAndQuery}`, {
      key,
      ...(body === undefined ? {} : { body }),
      ...(headers ? { headers } : {}),
    });
  }

  async control<T = any>(pathAndQuery: string, method = 'GET', body?: unknown): Promise<T> {
    const answer = await this.request(method, `${this.stack.env.BROKER_SIM_HTTP_URL}${pathAndQuery}`, body === undefined ? {} : { body });
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(
        `broker-sim ${method} ${pathAndQuery} answered ${answer.status || answer.networkError}: ${JSON.stringify(answer.body)}`,
      );
    return answer.body as T;
  }

  async sandbox<T = any>(pathAndQuery: string, method = 'GET', body?: unknown): Promise<T> {
    const answer = await this.request(method, `${this.sandboxUrl}${pathAndQuery}`, body === undefined ? {} : { body });
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`sandbox ${method} ${pathAndQuery} answered ${answer.status || answer.networkError}: ${JSON.stringify(answer.body)}`);
    return answer.body as T;
  }

  // ---- customers ----

  /**
   * A customer with a full and a read-only key, optionally a chosen id (fault hooks match on ids), broker
   * accounts with a large balance (so margin never interferes) connected on bonus seats, and an opening balance.
   */
  async newCustomer(
    label: string,
    options: {
      accountsPerServer?: number;
      servers?: ReadonlyArray<(typeof brokerServers)[number]>;
      balanceEurCents?: number;
      customerId?: string;
    } = {},
  ): Promise<Customer> {
    const id = options.customerId ?? `cus_${label.replace(/[^A-Za-z0-9]/g, '').slice(0, 16)}${crypto.randomBytes(5).toString('hex')}`;
    await this.gatewayStore.customers.insertOne({ _id: id, name: `fault suite ${label}`, created_at: new Date() });
    const full = await issueKey(this.gatewayStore, id, 'full');
    const read = await issueKey(this.gatewayStore, id, 'read');
    const accounts: TradingAccount[] = [];
    for (const server of options.servers ?? brokerServers) {
      for (let index = 0; index < (options.accountsPerServer ?? 0); index++) {
        const login = String(++this.loginSequence);
        const password = `pw-${login}`;
        await this.control('/control/accounts', 'POST', { server: server.server, login, password, balance: 100_000_000, leverage: 500 });
        const account = await this.execution.call<{ id: string }>(
          'CreateAccount',
          {
            customer_id: id,
            platform: server.platform,
            server: server.server,
            login,
            password,
            label: `${server.server} ${login}`,
            bonus_seat: true,
          },
          { deadlineMs: 20_000 },
        );
        accounts.push({ id: account.id, platform: server.platform, server: server.server, login, symbol: server.symbol });
      }
    }
    if (options.balanceEurCents) await this.grant(id, options.balanceEurCents, `opening:${id}`);
    return { id, fullKey: full.key, readKey: read.key, accounts };
  }

  /** Puts money on a wallet directly through the wallet's gRPC API (set-up only, never part of what is tested). */
  /**
   * Customers for a fault's background load, one per label: a broker account on each server, a balance, and a
   * top-up their postbacks pay into.
   */
  async loadCustomers(labels: string[]): Promise<{ customers: Customer[]; topups: TopupForPostbacks[] }> {
    const customers: Customer[] = [];
    const topups: TopupForPostbacks[] = [];
    for (const label of labels) {
      const customer = await this.newCustomer(label, { accountsPerServer: 1, balanceEurCents: 30_000 });
      customers.push(customer);
      topups.push(await this.createTopup(customer, 40_000));
    }
    return { customers, topups };
  }

  async grant(customerId: string, amountEurCents: number, entryId: string): Promise<void> {
    await this.wallet.call('Credit', {
      customer_id: customerId,
      entry_id: entryId,
      amount_eur_cents: amountEurCents,
      reason: 'adjustment',
      reference: 'fault suite',
    });
  }

  async balance(customerId: string): Promise<{ balance_eur_cents: number; held_eur_cents: number; sequence: number }> {
    return this.wallet.call('GetWallet', { customer_id: customerId, consistent: true });
  }

  // ---- top-ups and postbacks ----

  /** Creates a top-up through the API and reads what a provider postback names (invoice id) from the payments store. */
  async createTopup(
    customer: Customer,
    amountEurCents: number,
    asset = { asset_code: 'USDT', blockchain_code: 'TRON' },
  ): Promise<TopupForPostbacks> {
    const answer = await this.api(customer.fullKey, 'POST', '/v1/wallet/topup', { amount_eur_cents: amountEurCents, ...asset });
    if (answer.status !== 201)
      throw new Error(`top-up creation answered ${answer.status || answer.networkError}: ${JSON.stringify(answer.body)}`);
    const document = await this.mongo
      .db(databaseName(this.prefix, 'payments'))
      .collection<{ _id: string; invoice_id: string }>('topups')
      .findOne({ _id: String(answer.body.id) });
    if (!document) throw new Error(`top-up ${answer.body.id} is not in the payments store`);
    return {
      id: answer.body.id,
      customerId: customer.id,
      invoiceId: document.invoice_id,
      address: answer.body.deposit_address,
      assetCode: answer.body.asset_code,
      blockchainCode: answer.body.blockchain_code,
      amountEurCents,
      depositUnits: BigInt(answer.body.deposit_amount),
      createdAt: new Date(answer.body.created_at),
    };
  }

  /** The body a provider posts back for one transaction of a top-up (the crypto-sandbox's format). */
  postbackBody(
    topup: TopupForPostbacks,
    transactionId: string,
    amountUnits: bigint,
    status: 'confirming' | 'confirmed',
    receivedAt = new Date(topup.createdAt.getTime() + 1_000),
  ): string {
    return JSON.stringify({
      type: 'transaction',
      delivery_id: `dlv_${crypto.randomBytes(8).toString('hex')}`,
      timestamp: new Date().toISOString(),
      invoice_id: topup.invoiceId,
      order_id: String(topup.id),
      address: topup.address,
      asset_code: topup.assetCode,
      blockchain_code: topup.blockchainCode,
      transaction: {
        id: transactionId,
        amount: amountUnits.toString(),
        status,
        confirmations: status === 'confirmed' ? 12 : 1,
        received_at: receivedAt.toISOString(),
      },
    });
  }

  sign(body: string | Buffer): string {
    return signPostback(body, postbackSecret);
  }

  /** Delivers a postback; `signature` null sends none, undefined signs the body correctly. */
  postback(body: string | Buffer, signature?: string | null): Promise<HttpAnswer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'mtx-crypto-sandbox/1' };
    const chosen = signature === undefined ? this.sign(body) : signature;
    if (chosen !== null) headers['x-signature'] = chosen;
    return this.request('POST', `${this.gatewayUrl}/v1/hooks/payments/sandbox`, { rawBody: body, headers });
  }

  // ---- money checks ----

  async audit(): Promise<AuditReport> {
    return this.wallet.call<AuditReport>('Audit', {}, { deadlineMs: 60_000 });
  }

  /** Ledger entries by entry id (a scan; checks only). */
  async ledgerEntries(filter: Record<string, unknown> = {}): Promise<LedgerEntry[]> {
    return this.mongo.db(databaseName(this.prefix, 'wallet')).collection<LedgerEntry>('ledger').find(filter).toArray();
  }

  /** A NATS client of the suite's own, for reading the postback inbox as an operator would. */
  private async natsClient(): Promise<NatsConnection> {
    this.inspector ??= connectNats(this.natsCluster?.url ?? this.nats.url, 'fault-suite', createLogger('fault-suite', { level: 'silent' }));
    return this.inspector;
  }

  /**
   * Listens to the wallet's credit announcements (`events.wallet.credited`) from now on: `announced` holds the
   * entry id of each one heard, in order, until `stop`.
   */
  async creditAnnouncements(): Promise<{ announced: string[]; stop(): void }> {
    const nats = await this.natsClient();
    const announced: string[] = [];
    const decoder = new TextDecoder();
    const subscription = nats.subscribe('events.wallet.credited', {
      callback: (error, message) => {
        if (!error) announced.push(String((JSON.parse(decoder.decode(message.data)) as { entry_id?: unknown }).entry_id));
      },
    });
    await nats.flush();
    return { announced, stop: () => subscription.unsubscribe() };
  }

  /** Postback inbox records not credited yet (waiting, or held by a crediting worker). */
  async inboxUnsettled(): Promise<number> {
    return countUnsettled(await this.natsClient(), this.prefix);
  }

  /** The postback inbox's record of a transaction (`<provider>:<transaction id>`), or null. */
  async inboxRecord(id: string): Promise<InboxRecord | null> {
    return readInboxRecord(await this.natsClient(), this.prefix, id);
  }

  /**
   * Waits until every postback recorded in the inbox is credited, at most `deadlineMs`; answers how long that
   * took, or null when records were still unsettled at the deadline.
   */
  async inboxDrained(deadlineMs: number): Promise<number | null> {
    const startedAtMs = Date.now();
    for (;;) {
      const unsettled = await this.inboxUnsettled().catch(() => -1);
      if (unsettled === 0) return Date.now() - startedAtMs;
      if (Date.now() - startedAtMs > deadlineMs) return null;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Acknowledged movements that are not in the ledger. Credits and debits are named by entry id, or by an entry-id
   * prefix when the caller cannot know the period part (`server:<id>:`). Returns the missing ones.
   */
  async missingFromLedger<T extends { entryId?: string; entryIdPrefix?: string; amountEurCents: number }>(movements: T[]): Promise<T[]> {
    if (movements.length === 0) return [];
    const entries = await this.ledgerEntries();
    const ids = new Set(entries.map((entry) => entry.entry_id));
    return movements.filter((movement) =>
      movement.entryId ? !ids.has(movement.entryId) : !entries.some((entry) => entry.entry_id.startsWith(movement.entryIdPrefix!)),
    );
  }

  /**
   * Server charges in the ledger whose server the customer does not have: money taken for nothing. A purchase cut
   * off by a fault stays pending until billing's recovery decides it, so this waits up to `deadlineMs` for the
   * list to empty and returns what is left.
   */
  async chargesWithoutPurchase(
    customers: Customer[],
    deadlineMs: number,
  ): Promise<Array<{ entryId: string; customerId: string; amountEurCents: number; stored?: string }>> {
    let orphans: Array<{ entryId: string; customerId: string; amountEurCents: number; stored?: string }> = [];
    const check = async () => {
      orphans = [];
      const entries = await this.ledgerEntries({ kind: 'debit' });
      for (const customer of customers) {
        const charged = entries.filter((entry) => entry.wallet_id === customer.id && entry.entry_id.startsWith('server:'));
        if (charged.length === 0) continue;
        const answer = await this.api(customer.readKey, 'GET', '/v1/servers');
        if (answer.status !== 200) throw new Error(`GET /v1/servers answered ${answer.status}`);
        const live = new Set((answer.body.servers as Array<{ id: string }>).map((server) => server.id));
        for (const entry of charged) {
          if (!live.has(entry.entry_id.split(':')[1]!))
            orphans.push({ entryId: entry.entry_id, customerId: customer.id, amountEurCents: entry.amount_eur_cents });
        }
      }
      return orphans.length === 0;
    };
    try {
      await eventually(check, deadlineMs, 500);
    } catch {
      // What billing holds of each: its status and pointer ordinal, so a failure names its cause.
      const servers = this.mongo
        .db(databaseName(this.prefix, 'billing'))
        .collection<{ _id: string; status: string; ordinal: number }>('servers');
      for (const orphan of orphans) {
        const server = await servers.findOne({ _id: orphan.entryId.split(':')[1]! });
        orphan.stored = server ? `${server.status}, ordinal ${server.ordinal}` : 'no server document';
      }
      return orphans;
    }
    return [];
  }

  // ---- execution checks ----

  async deals(account: TradingAccount): Promise<Array<{ clientId: string; order: number; deal?: number }>> {
    return (
      await this.control<{ deals: Array<{ clientId: string; order: number }> }>(
        `/control/accounts/${account.server}/${account.login}/deals`,
      )
    ).deals;
  }

  /**
   * The execution invariants over the given batches and accounts:
   * - every client id has at most one deal at the broker (else: executed twice);
   * - every batch settles (no leg `unknown` after reconciliation), waited for up to `settleDeadlineMs`;
   * - every leg settled `filled` has exactly its deal at the broker, and a leg settled as not executed
   *   (rejected, unavailable) has none (else: an order lost, or an execution nobody was told about).
   */
  /** Which of a batch's execution records the store holds, for a failure's message. */
  private async executionRecords(batchId: string): Promise<string> {
    const database = this.mongo.db(databaseName(this.prefix, 'execution'));
    const byId = (collection: string) => database.collection<{ _id: string }>(collection).countDocuments({ _id: batchId });
    const byBatch = (collection: string) => database.collection(collection).countDocuments({ batch_id: batchId });
    try {
      const [batch, outcome, marker, unsettled, settlements] = await Promise.all([
        byId('batches'),
        byId('outcomes'),
        this.mongo
          .db(openMarkersDatabaseName(databaseName(this.prefix, 'execution')))
          .collection<{ _id: string }>('batches_in_flight')
          .countDocuments({ _id: batchId }),
        byBatch('unsettled'),
        database.collection<{ _id: string }>('settlements').countDocuments({ _id: { $regex: `^${batchId}:` } }),
      ]);
      return `batch ${batch}, outcome ${outcome}, open marker ${marker}, unsettled rows ${unsettled}, settlements ${settlements}`;
    } catch (error) {
      return `unreadable (${(error as Error).message})`;
    }
  }

  async executionInvariants(
    customers: Customer[],
    batchIds: string[],
    settleDeadlineMs = 30_000,
  ): Promise<{ executedTwice: number; ordersLost: number; unsettled: string[]; legs: number; problems: string[] }> {
    const problems: string[] = [];
    const dealsByClientId = new Map<string, number>();
    const accountsById = new Map<string, TradingAccount>();
    for (const customer of customers) for (const account of customer.accounts) accountsById.set(account.id, account);
    const unsettled: string[] = [];
    const batches: Array<{ batchId: string; body: any }> = [];
    // A batch belongs to one customer; its owner is found by asking with each key (404 for the others).
    const started = Date.now();
    for (const batchId of new Set(batchIds)) {
      let settledBody: any;
      let owner: string | undefined;
      let lastSeen: any;
      const statuses = new Set<string>();
      try {
        settledBody = await eventually(
          async () => {
            for (const customer of customers) {
              if (owner && owner !== customer.readKey) continue;
              const answer = await this.api(customer.readKey, 'GET', `/v1/orders/batches/${batchId}`);
              statuses.add(errorKind(answer));
              if (answer.status === 404) continue;
              if (answer.status !== 200) return undefined;
              owner = customer.readKey;
              lastSeen = answer.body;
              return answer.body.settled ? answer.body : undefined;
            }
            return undefined;
          },
          Math.max(1_000, settleDeadlineMs - (Date.now() - started)),
          250,
        );
      } catch {
        unsettled.push(batchId);
        const legs = (lastSeen?.results ?? lastSeen?.accounts ?? []) as Array<{ status: string; message?: string }>;
        problems.push(
          `batch ${batchId} still has unknown legs: ${legs.map((leg) => `${leg.status} (${leg.message ?? ''})`).join('; ') || `never read (answers: ${[...statuses].join(', ')})`}; in the store: ${await this.executionRecords(batchId)}`,
        );
        continue;
      }
      batches.push({ batchId, body: settledBody });
    }
    for (const account of accountsById.values()) {
      for (const deal of await this.deals(account)) {
        if (!deal.clientId) continue;
        const key = brokerKeyOfRecord(deal.clientId);
        dealsByClientId.set(key, (dealsByClientId.get(key) ?? 0) + 1);
      }
    }
    let executedTwice = 0;
    for (const [clientId, count] of dealsByClientId) {
      if (count > 1) {
        executedTwice += count - 1;
        problems.push(`client id ${clientId} (tag) has ${count} deals at the broker`);
      }
    }
    let ordersLost = 0;
    let legs = 0;
    for (const batch of batches) {
      for (const [index, leg] of (batch.body.results as Array<{ status: string; order: number }>).entries()) {
        legs += 1;
        const clientId = `${batch.batchId}-${index}`;
        const count = dealsByClientId.get(brokerKeyOfLeg(clientId)) ?? 0;
        if (leg.status === 'filled' && count !== 1) {
          ordersLost += 1;
          problems.push(`leg ${clientId} is filled but the broker has ${count} deals for it`);
        }
        if ((leg.status === 'rejected' || leg.status === 'unavailable') && count !== 0) {
          ordersLost += 1;
          problems.push(`leg ${clientId} is ${leg.status} but the broker executed it`);
        }
      }
    }
    return { executedTwice, ordersLost, unsettled, legs, problems };
  }

  async close(): Promise<void> {
    this.wallet?.close();
    this.execution?.close();
    this.billing?.close();
    // Restarted services and extra replicas are in the stack's map too, so this stops every process the suite started.
    await this.stack?.stop().catch(() => undefined);
    await this.mongo?.close().catch(() => undefined);
    if (this.inspector) await (await this.inspector).close().catch(() => undefined);
    await Promise.all([this.store?.stop(), this.natsCluster ? this.natsCluster.stop() : this.nats?.stop()]);
    await new Promise<void>((resolve) => this.logStream.end(resolve));
    fs.rmSync(this.directory, { recursive: true, force: true });
  }
}

export function networkErrorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; name?: string } })?.cause;
  if (cause?.code) return cause.code;
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  return cause?.name ?? name ?? 'error';
}

/** `<status> <code>` for an error answer, `network <code>` when none came. */
export function errorKind(answer: HttpAnswer): string {
  if (answer.networkError) return `network ${answer.networkError}`;
  const code = (answer.body as { error?: { code?: string } } | undefined)?.error?.code;
  return `${answer.status}${code ? ` ${code}` : ''}`;
}

export const sleep = (durationMs: number) => new Promise<void>((resolve) => setTimeout(resolve, durationMs));
