import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort, waitForPort } from './ports';
import { managedProcess, type LocalProcess } from './managed-process';
import { startNatsCluster } from './nats-cluster';
import { waitForNats } from './nats-readiness';
import { startPostgres } from './postgres';
import { provisionTools, serverTools } from './provision';

export type { LocalProcess } from './managed-process';
export { startNatsCluster, type LocalNatsCluster } from './nats-cluster';

export interface LocalInfrastructure {
  mongodbUrl: string;
  /** One URL, or every node's URL comma-separated for a cluster (clients take the list and reconnect across it). */
  natsUrl: string;
  store?: LocalStore;
  /** The single nats-server, or the cluster's first node. */
  nats?: LocalProcess;
  /** Every node of a local NATS cluster (NATS_CLUSTER_SIZE > 1), for fault tests that kill one. */
  natsNodes?: LocalProcess[];
  stop(): Promise<void>;
}

export interface StartOptions {
  dataDirectory: string;
  /** Defaults to MONGODB_URL / NATS_URL from the environment; a set URL means "use that, start nothing". */
  mongodbUrl?: string | undefined;
  natsUrl?: string | undefined;
  log?: (line: string) => void;
  /** Where the servers' own output goes; defaults to files in the data directory. */
  outputDirectory?: string;
  /** nats-servers to start as one JetStream cluster; defaults to NATS_CLUSTER_SIZE, else 1 (a single server). */
  natsClusterSize?: number;
  /** Serve FerretDB's Prometheus metrics (its debug listener), for benchmarks that count store commands. */
  storeMetrics?: boolean;
}

async function waitForMongo(url: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 });
    try {
      await client.connect();
      await client.db('admin').command({ ping: 1 });
      return;
    } catch (error) {
      if (Date.now() > until) throw new Error(`store at ${url} did not answer within ${deadlineMs} ms: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}

/** NATS_CLUSTER_SIZE: 1 (a single nats-server, the default) up to 5 nodes of one local JetStream cluster. */
export function natsClusterSizeFromEnvironment(environment: NodeJS.ProcessEnv = process.env): number {
  const text = environment.NATS_CLUSTER_SIZE?.trim();
  if (!text) return 1;
  const size = Number(text);
  if (!Number.isInteger(size) || size < 1 || size > 5)
    throw new Error(
      `NATS_CLUSTER_SIZE=${JSON.stringify(text)} is not a node count from 1 to 5 (3 for a cluster that survives a node loss)`,
    );
  return size;
}

/**
 * FERRETDB_SQLITE_SYNCHRONOUS: SQLite's `synchronous` for the local store. NORMAL (the default) keeps every
 * committed write across any process crash, the fault suite's SIGKILL included, and syncs the write-ahead log at
 * checkpoints instead of on every commit; FULL also survives an OS crash or power loss, at one fsync per command.
 */
export function sqliteSynchronousFromEnvironment(environment: NodeJS.ProcessEnv = process.env): 'NORMAL' | 'FULL' {
  const text = (environment.FERRETDB_SQLITE_SYNCHRONOUS?.trim() || 'NORMAL').toUpperCase();
  if (text !== 'NORMAL' && text !== 'FULL')
    throw new Error(`FERRETDB_SQLITE_SYNCHRONOUS=${JSON.stringify(environment.FERRETDB_SQLITE_SYNCHRONOUS)} is not NORMAL or FULL`);
  return text;
}

/**
 * FERRETDB_GOGC: the Go garbage collector's target for the local store (GOGC, percent of live heap allowed to
 * grow before a collection), 400 unless set. Collecting less often cut FerretDB's CPU under the benchmarks' load
 * by about a fifth: its share of the machine's CPU at 64 batches in flight was 0.085-0.097 at Go's default of 100
 * and 0.068-0.083 at 400 (four runs each, alternated), for 41 -> 53 MB resident. Production runs MongoDB, which
 * this does not touch.
 */
export function ferretdbGogcFromEnvironment(environment: NodeJS.ProcessEnv = process.env): string {
  const text = environment.FERRETDB_GOGC?.trim() || '400';
  const percent = Number(text);
  if (!Number.isInteger(percent) || percent < 50 || percent > 2_000)
    throw new Error(`FERRETDB_GOGC=${JSON.stringify(environment.FERRETDB_GOGC)} is not a whole percentage from 50 to 2000`);
  return String(percent);
}

/**
 * SQLite's settings for the local store. temp_store(memory): FerretDB inserts a batch's documents one statement
 * each inside one transaction, so every statement keeps a statement journal (to undo itself alone on a duplicate
 * key), and past 64 KiB SQLite spills that journal to a temporary file, opened, written and unlinked per
 * transaction: 15-20 % of FerretDB's CPU at 1,000 postbacks/s. In memory, it is a copy. Durability is unchanged:
 * only the write-ahead log and the database file hold committed data.
 */
export function sqlitePragmas(environment: NodeJS.ProcessEnv = process.env): string[] {
  return [`synchronous(${sqliteSynchronousFromEnvironment(environment)})`, 'temp_store(memory)'];
}

export type StoreBackend = 'sqlite' | 'postgresql';

/**
 * FERRETDB_BACKEND: FerretDB's storage for the local store, `sqlite` (the default) or `postgresql` (a local
 * PostgreSQL server started next to it, its cluster in `<data>/postgres`). SQLite measured cheaper on both
 * write-heavy benchmarks (docs/performance.md, "The store"); production runs MongoDB, which neither touches.
 */
export function storeBackendFromEnvironment(environment: NodeJS.ProcessEnv = process.env): StoreBackend {
  const text = (environment.FERRETDB_BACKEND?.trim() || 'sqlite').toLowerCase();
  if (text !== 'sqlite' && text !== 'postgresql')
    throw new Error(`FERRETDB_BACKEND=${JSON.stringify(environment.FERRETDB_BACKEND)} is not sqlite or postgresql`);
  return text;
}

/** The local store: FerretDB, and on the PostgreSQL backend the server behind it (`backend`). */
export type LocalStore = LocalProcess & { metricsUrl?: string; backend?: LocalProcess };

/**
 * One store process for its users: FerretDB in front of `backend`. Starting starts the backend first and
 * stopping stops it last; a kill is FerretDB's crash (the server behind it keeps running, as a database server
 * does when its client-facing process dies).
 */
function frontedBy(front: LocalProcess, backend: LocalProcess): LocalStore {
  return {
    name: front.name,
    port: front.port,
    url: front.url,
    backend,
    running: () => front.running(),
    get pid() {
      return front.pid;
    },
    async start() {
      if (!backend.running()) await backend.start();
      await front.start();
    },
    async stop(graceMs?: number) {
      await front.stop(graceMs);
      await backend.stop(graceMs);
    },
    kill: () => front.kill(),
  };
}

/**
 * Starts FerretDB in `directory` on a free port, on the backend FERRETDB_BACKEND names (or `options.backend`);
 * `port` pins it (a restart keeps its address). With `metrics`, its Prometheus counters (commands served, by
 * name) are at `metricsUrl`; off by default, as only the benchmarks that count store commands read them.
 */
export async function startStore(
  directory: string,
  port?: number,
  outputDirectory = directory,
  options: { metrics?: boolean; backend?: StoreBackend } = {},
): Promise<LocalStore> {
  const backendName = options.backend ?? storeBackendFromEnvironment();
  const binaries = await provisionTools(undefined, serverTools);
  const chosenPort = port ?? (await freePort());
  const debugPort = options.metrics ? await freePort() : undefined;
  const stateDirectory = path.join(directory, 'ferretdb');
  fs.mkdirSync(stateDirectory, { recursive: true });
  fs.mkdirSync(outputDirectory, { recursive: true });
  const backend =
    backendName === 'postgresql'
      ? await startPostgres({
          directory: path.join(directory, 'postgres'),
          port: await freePort(),
          logFile: path.join(outputDirectory, 'postgresql.log'),
        })
      : undefined;
  const storage = backend
    ? ['--handler=postgresql', `--postgresql-url=${backend.connectionUrl}`]
    : [
        '--handler=sqlite',
        `--sqlite-url=file:${stateDirectory}/?${sqlitePragmas()
          .map((pragma) => `_pragma=${pragma}`)
          .join('&')}`,
      ];
  const url = `mongodb://127.0.0.1:${chosenPort}/`;
  const ferretdb = managedProcess(
    'ferretdb',
    chosenPort,
    url,
    binaries.ferretdb,
    [
      ...storage,
      `--state-dir=${stateDirectory}`,
      `--listen-addr=127.0.0.1:${chosenPort}`,
      debugPort === undefined ? '--debug-addr=-' : `--debug-addr=127.0.0.1:${debugPort}`,
      '--telemetry=disable',
      '--log-level=warn',
    ],
    path.join(outputDirectory, 'ferretdb.log'),
    async () => {
      await waitForPort(chosenPort, 30_000);
      await waitForMongo(url, 30_000);
    },
    { GOGC: ferretdbGogcFromEnvironment() },
  );
  try {
    await ferretdb.start();
  } catch (error) {
    await backend?.stop();
    throw error;
  }
  const store: LocalStore = backend ? frontedBy(ferretdb, backend) : ferretdb;
  return debugPort === undefined ? store : Object.assign(store, { metricsUrl: `http://127.0.0.1:${debugPort}/debug/metrics` });
}

/** Starts nats-server with JetStream in `directory` on a free port. */
export async function startNats(directory: string, port?: number, outputDirectory = directory): Promise<LocalProcess> {
  const binaries = await provisionTools(undefined, serverTools);
  const chosenPort = port ?? (await freePort());
  const jetstreamDirectory = path.join(directory, 'nats');
  fs.mkdirSync(jetstreamDirectory, { recursive: true });
  fs.mkdirSync(outputDirectory, { recursive: true });
  const url = `nats://127.0.0.1:${chosenPort}`;
  const server = managedProcess(
    'nats-server',
    chosenPort,
    url,
    binaries['nats-server'],
    ['-a', '127.0.0.1', '-p', String(chosenPort), '-js', '-sd', jetstreamDirectory],
    path.join(outputDirectory, 'nats-server.log'),
    async () => {
      await waitForPort(chosenPort, 15_000);
      await waitForNats(url, 15_000);
    },
  );
  await server.start();
  return server;
}

/** A local JetStream cluster: its nodes (each a LocalProcess that can be killed and restarted) and their URLs. */
/**
 * Brings up the store and NATS unless MONGODB_URL / NATS_URL point elsewhere, and stops what it started. With
 * NATS_CLUSTER_SIZE (or `natsClusterSize`) above 1, NATS is a local JetStream cluster of that many nodes.
 */
export async function startLocalInfrastructure(options: StartOptions): Promise<LocalInfrastructure> {
  const log = options.log ?? (() => undefined);
  fs.mkdirSync(options.dataDirectory, { recursive: true });
  const outputDirectory = options.outputDirectory ?? options.dataDirectory;
  const mongodbUrl = options.mongodbUrl ?? process.env.MONGODB_URL;
  const natsUrl = options.natsUrl ?? process.env.NATS_URL;
  const clusterSize = options.natsClusterSize ?? natsClusterSizeFromEnvironment();
  const [store, nats, cluster] = await Promise.all([
    mongodbUrl
      ? Promise.resolve(undefined)
      : startStore(options.dataDirectory, undefined, outputDirectory, { metrics: options.storeMetrics === true }),
    natsUrl || clusterSize > 1 ? Promise.resolve(undefined) : startNats(options.dataDirectory, undefined, outputDirectory),
    natsUrl || clusterSize <= 1 ? Promise.resolve(undefined) : startNatsCluster(options.dataDirectory, clusterSize, outputDirectory),
  ]);
  const infrastructure: LocalInfrastructure = {
    mongodbUrl: mongodbUrl ?? store!.url,
    natsUrl: natsUrl ?? cluster?.url ?? nats!.url,
    async stop() {
      await Promise.all([store?.stop(), nats?.stop(), cluster?.stop()]);
    },
  };
  if (store) infrastructure.store = store;
  if (nats) infrastructure.nats = nats;
  if (cluster) {
    infrastructure.nats = cluster.nodes[0]!;
    infrastructure.natsNodes = cluster.nodes;
  }
  const natsOrigin = cluster ? ` (a ${clusterSize}-node JetStream cluster, started)` : nats ? ' (started)' : ' (NATS_URL)';
  log(
    `store ${infrastructure.mongodbUrl}${store ? ` (FerretDB on ${store.backend ? 'PostgreSQL' : 'SQLite'}, started)` : ' (MONGODB_URL)'}; NATS ${infrastructure.natsUrl}${natsOrigin}`,
  );
  return infrastructure;
}
