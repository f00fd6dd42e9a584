import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { StorageType, connect } from 'nats';
import { freePort, waitForPort } from './ports';
import { provisionTools } from './provision';

export interface LocalProcess {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** Whether the process is running now. */
  running(): boolean;
  /** Its process id while running (benchmarks read its CPU time). */
  readonly pid: number | undefined;
  /** Stops it (SIGTERM, then SIGKILL after the grace). */
  stop(graceMs?: number): Promise<void>;
  /** Kills it at once, as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data, and waits until it answers. */
  start(): Promise<void>;
}

export interface LocalInfrastructure {
  mongodbUrl: string;
  /** One URL, or every node's URL comma-separated for a cluster (clients take the list and reconnect across it). */
  natsUrl: string;
  store?: LocalProcess & { metricsUrl?: string };
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

function managedProcess(
  name: string,
  port: number,
  url: string,
  command: string,
  args: string[],
  logFile: string,
  ready: () => Promise<void>,
): LocalProcess {
  let child: ChildProcess | undefined;
  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    const output = fs.openSync(logFile, 'a');
    child = spawn(command, args, { stdio: ['ignore', output, output] });
    fs.closeSync(output);
    const exited = new Promise<never>((_, reject) =>
      child!.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before it was ready; see ${logFile}`))),
    );
    await Promise.race([ready(), exited]);
  };
  const waitExit = (graceMs: number, signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const current = child;
      if (!current || current.exitCode !== null || current.signalCode !== null) return resolve();
      const timer = setTimeout(() => current.kill('SIGKILL'), graceMs);
      current.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      current.kill(signal);
    });
  return {
    name,
    port,
    url,
    running: () => !!child && child.exitCode === null && child.signalCode === null,
    get pid() {
      return child?.pid;
    },
    start,
    stop: (graceMs = 5_000) => waitExit(graceMs, 'SIGTERM'),
    kill: () => waitExit(1_000, 'SIGKILL'),
  };
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

/** Waits until JetStream answers through `url`: on a cluster, until its nodes have elected a meta leader. */
async function waitForJetStream(url: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const connection = await connect({ servers: url.split(','), timeout: 500, reconnect: false }).catch(() => undefined);
    try {
      if (connection) {
        await (await connection.jetstreamManager({ timeout: 1_000 })).getAccountInfo();
        return;
      }
    } catch (error) {
      if (Date.now() > until) throw new Error(`JetStream at ${url} did not answer within ${deadlineMs} ms: ${(error as Error).message}`);
    } finally {
      await connection?.close().catch(() => undefined);
    }
    if (Date.now() > until) throw new Error(`NATS at ${url} did not answer within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits until a stream with one copy on each of `size` nodes can be placed: the sign that every node has joined
 * the JetStream meta group (a meta leader alone answers before its peers are known).
 */
async function waitForPeers(url: string, size: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  const name = 'MTX_CLUSTER_READY';
  for (;;) {
    const connection = await connect({ servers: url.split(','), timeout: 500, reconnect: false }).catch(() => undefined);
    try {
      if (connection) {
        const manager = await connection.jetstreamManager({ timeout: 2_000 });
        // File storage, as the claims bucket uses: placement then weighs what a real bucket needs.
        await manager.streams.add({
          name,
          subjects: ['mtx.cluster.ready'],
          num_replicas: size,
          storage: StorageType.File,
          max_bytes: 1_048_576,
        });
        await manager.streams.delete(name);
        return;
      }
    } catch (error) {
      if (Date.now() > until)
        throw new Error(
          `the ${size} NATS nodes at ${url} did not form a JetStream cluster within ${deadlineMs} ms: ${(error as Error).message}`,
        );
    } finally {
      await connection?.close().catch(() => undefined);
    }
    if (Date.now() > until) throw new Error(`NATS at ${url} did not answer within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function waitForNats(url: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      const connection = await connect({ servers: url, timeout: 500, reconnect: false });
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > until) throw new Error(`NATS at ${url} did not answer within ${deadlineMs} ms: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
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
 * Starts FerretDB (SQLite) in `directory` on a free port; `port` pins it (a restart keeps its address). With
 * `metrics`, its Prometheus counters (commands served, by name) are at `metricsUrl`. Off by default: with the
 * debug listener on (a second port, from the ephemeral range), the fault test that kills and restarts the store
 * left one service's driver failing with ECONNRESET for good in 2 of 7 runs, and in none of 8 without it.
 */
export async function startStore(
  directory: string,
  port?: number,
  outputDirectory = directory,
  options: { metrics?: boolean } = {},
): Promise<LocalProcess & { metricsUrl?: string }> {
  const binaries = await provisionTools();
  const chosenPort = port ?? (await freePort());
  const debugPort = options.metrics ? await freePort() : undefined;
  const sqliteDirectory = path.join(directory, 'ferretdb');
  fs.mkdirSync(sqliteDirectory, { recursive: true });
  fs.mkdirSync(outputDirectory, { recursive: true });
  const url = `mongodb://127.0.0.1:${chosenPort}/`;
  const store = managedProcess(
    'ferretdb',
    chosenPort,
    url,
    binaries.ferretdb,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${sqliteDirectory}/`,
      `--state-dir=${sqliteDirectory}`,
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
  );
  await store.start();
  return debugPort === undefined ? store : Object.assign(store, { metricsUrl: `http://127.0.0.1:${debugPort}/debug/metrics` });
}

/** Starts nats-server with JetStream in `directory` on a free port. */
export async function startNats(directory: string, port?: number, outputDirectory = directory): Promise<LocalProcess> {
  const binaries = await provisionTools();
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
export interface LocalNatsCluster {
  nodes: LocalProcess[];
  /** Each node's monitoring endpoint (`/connz`, `/jsz`, …), in the order of `nodes`. */
  monitorUrls: string[];
  /** Every node's client URL, comma-separated. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `size` nats-servers with JetStream as one cluster (routes between all of them), each on its own client
 * and route ports and in its own store folder under `directory`, and waits until JetStream answers (a meta leader
 * is elected). A node restarted with `start()` rejoins on the same ports and data.
 */
export async function startNatsCluster(directory: string, size = 3, outputDirectory = directory): Promise<LocalNatsCluster> {
  const binaries = await provisionTools();
  fs.mkdirSync(outputDirectory, { recursive: true });
  // Distinct ports: a port freed by one probe can be handed out again by the next.
  const taken = new Set<number>();
  const distinctPort = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  const monitorPorts: number[] = [];
  for (let index = 0; index < size; index += 1) {
    clientPorts.push(await distinctPort());
    routePorts.push(await distinctPort());
    monitorPorts.push(await distinctPort());
  }
  const routes = routePorts.map((port) => `nats://127.0.0.1:${port}`).join(',');
  const nodes = clientPorts.map((clientPort, index) => {
    const name = `nats-${index + 1}`;
    const storeDirectory = path.join(directory, 'nats-cluster', name);
    fs.mkdirSync(storeDirectory, { recursive: true });
    const url = `nats://127.0.0.1:${clientPort}`;
    return managedProcess(
      name,
      clientPort,
      url,
      binaries['nats-server'],
      [
        ...['-a', '127.0.0.1', '-p', String(clientPort), '-js', '-sd', storeDirectory, '--server_name', name],
        ...['--cluster_name', 'mtx-local', '--cluster', `nats://127.0.0.1:${routePorts[index]}`, '--routes', routes],
        ...['-m', String(monitorPorts[index])],
      ],
      path.join(outputDirectory, `${name}.log`),
      async () => {
        await waitForPort(clientPort, 15_000);
        await waitForNats(url, 15_000);
      },
    );
  });
  const url = nodes.map((node) => node.url).join(',');
  // Together: a node alone cannot elect a JetStream meta leader.
  await Promise.all(nodes.map((node) => node.start()));
  // Generous: on a loaded machine (the test suite's other files, services starting) routes and the meta group
  // can take a while to settle.
  await waitForJetStream(url, 60_000);
  await waitForPeers(url, size, 60_000);
  return {
    nodes,
    monitorUrls: monitorPorts.map((port) => `http://127.0.0.1:${port}`),
    url,
    async stop() {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}

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
    `store ${infrastructure.mongodbUrl}${store ? ' (FerretDB, started)' : ' (MONGODB_URL)'}; NATS ${infrastructure.natsUrl}${natsOrigin}`,
  );
  return infrastructure;
}
