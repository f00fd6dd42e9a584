import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { connect } from 'nats';
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
  natsUrl: string;
  store?: LocalProcess;
  nats?: LocalProcess;
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

/** Starts FerretDB (SQLite) in `directory` on a free port; `port` pins it (a restart keeps its address). */
export async function startStore(directory: string, port?: number, outputDirectory = directory): Promise<LocalProcess> {
  const binaries = await provisionTools();
  const chosenPort = port ?? (await freePort());
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
      '--debug-addr=-',
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
  return store;
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

/**
 * Brings up the store and NATS unless MONGODB_URL / NATS_URL point elsewhere, and stops what it started.
 */
export async function startLocalInfrastructure(options: StartOptions): Promise<LocalInfrastructure> {
  const log = options.log ?? (() => undefined);
  fs.mkdirSync(options.dataDirectory, { recursive: true });
  const outputDirectory = options.outputDirectory ?? options.dataDirectory;
  const mongodbUrl = options.mongodbUrl ?? process.env.MONGODB_URL;
  const natsUrl = options.natsUrl ?? process.env.NATS_URL;
  const [store, nats] = await Promise.all([
    mongodbUrl ? Promise.resolve(undefined) : startStore(options.dataDirectory, undefined, outputDirectory),
    natsUrl ? Promise.resolve(undefined) : startNats(options.dataDirectory, undefined, outputDirectory),
  ]);
  const infrastructure: LocalInfrastructure = {
    mongodbUrl: mongodbUrl ?? store!.url,
    natsUrl: natsUrl ?? nats!.url,
    async stop() {
      await Promise.all([store?.stop(), nats?.stop()]);
    },
  };
  if (store) infrastructure.store = store;
  if (nats) infrastructure.nats = nats;
  log(
    `store ${infrastructure.mongodbUrl}${store ? ' (FerretDB, started)' : ' (MONGODB_URL)'}; NATS ${infrastructure.natsUrl}${nats ? ' (started)' : ' (NATS_URL)'}`,
  );
  return infrastructure;
}
