/**
 * `npm run bench:execution`: 20-leg order batches end to end on real processes (gateway, execution,
 * connector-mt4, connector-mt5, notifications, broker-sim at zero latency) and the real store (FerretDB and NATS started
 * here unless MONGODB_URL / NATS_URL are set).
 *
 * Each batch has one leg on each of 20 accounts (10 MT4, 10 MT5, five brokers), so it is 20 NATS requests.
 * Three series, each closed loop at concurrency 1, 16 and 64:
 *   1. REST: POST /v1/orders through the gateway (auth, rate limit, validation) → gRPC → execution (batch
 *      and outcomes stored) → NATS → connectors (claims, trade server calls) → broker-sim.
 *   2. gRPC: ExecutionService.PlaceOrders called directly, to show what the gateway adds.
 *   3. Floor: the same 20 NATS requests sent straight to the connectors and awaited together (no gateway,
 *      no gRPC, no execution), measured in the same run on the same processes.
 * Writes test/bench/results/execution.json (format: docs/performance.md, "Result and baseline files"; with `--baseline` or BENCH_WRITE_BASELINE=1 also test/bench/baselines/execution.json) and prints a summary.
 * Knobs: BENCH_EXECUTION_SECONDS (per run, default 10), BENCH_EXECUTION_CONCURRENCY (default "1,16,64"),
 * BENCH_EXECUTION_OUTPUT (another results file, for exploratory runs), BENCH_EXECUTION_PROFILE=<dir>: every service writes a V8 CPU profile there, summarised per service at the end
 * (where the time goes: own code, gRPC, NATS, the store driver, GC, idle), BENCH_EXECUTION_SERIES=rest (REST series
 * only), BENCH_EXECUTION_RATE=<batches/s> (one more REST run at that fixed offered load), BENCH_EXECUTION_WARMUP_SECONDS
 * (default 3), BENCH_EXECUTION_TRACING=off|metrics|export,
 * BENCH_EXECUTION_OTLP_PROTOCOL, BENCH_EXECUTION_SPAN_CENSUS=true (see setUp), BENCH_EXECUTION_BROKER_SIM_TRACING=off,
 * BENCH_EXECUTION_BROKER_SIM_JOURNAL=disk (broker-sim's journal on disk rather than in /dev/shm; see setUp). REST runs also report each process's CPU
 * time and (with Linux perf) instructions per batch.
 *
 * BENCH_EXECUTION_SERVE=1 (only when forked with an IPC channel; bench:tracing does it): serve mode. The same setup
 * (own FerretDB, NATS and data directory, the services, 20 accounts, warm-up), then no runs of its own: it answers
 * the parent's commands (a closed-loop or fixed-rate REST slice, start/stop the CPU and instruction counters, stop;
 * see ServeCommand) until told to stop. That lets bench:tracing run two stacks side by side and alternate short
 * slices between them, so both see the same load from the rest of the machine.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectorCodecs, terminalSubject } from '../../services/shared/src/connector/messages';
import { createUnaryClient } from '@mtx/shared/grpc';
import { startLocalInfrastructure, storeBackendFromEnvironment, type LocalInfrastructure } from '../../services/devstack/src/local';
import { startStack, type Stack } from '../../services/devstack/src/services';
import { startOtlpReceiver, type OtlpReceiver } from '../../services/shared/src/testing/otlp-receiver';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';
import { createHttpPool, restCall, type HttpMethod } from './load-tools';
import { namedProcessCpuMs } from './process-cpu';
import { describeStoreCommandsPerUnit, readStoreCommands } from './store-commands';
import { writeBenchResult } from './baseline';
import { currentMachine, roundTo, runFromLatencies, type BenchResult, type BenchRun } from './report';

const runSeconds = Number(process.env.BENCH_EXECUTION_SECONDS ?? 10);
/**
 * Batch shapes, `<accounts>x<legs per account>`, each a 20-leg batch by default: 20x1 (one leg on each of 20
 * accounts: the fan-out dominates) and 4x5 (five legs served in turn on each of 4 terminals: per-leg work
 * dominates).
 */
const shapes = (process.env.BENCH_EXECUTION_SHAPES ?? '20x1,4x5').split(',').map((text) => {
  const match = /^(\d+)x(\d+)$/.exec(text.trim());
  if (!match || Number(match[1]) < 1 || Number(match[1]) > 20 || Number(match[1]) * Number(match[2]) > 20)
    throw new Error(`BENCH_EXECUTION_SHAPES: ${text} is not <accounts>x<legs> with at most 20 accounts and 20 legs`);
  return { name: text.trim(), accounts: Number(match[1]), legsPerAccount: Number(match[2]) };
});
/** The project's own processes: their CPU per batch is judged (broker-sim and the load generator stand outside). */
const projectProcesses = [
  'gateway',
  'execution',
  'connector-mt4',
  'connector-mt5',
  'notifications',
  'nats-server',
  'ferretdb',
  'postgresql',
];
const concurrencies = (process.env.BENCH_EXECUTION_CONCURRENCY ?? '1,16,64')
  .split(',')
  .map(Number)
  .filter((concurrency) => concurrency > 0);
const prefix = `benche_${crypto.randomBytes(3).toString('hex')}_`;
const subjectRoot = `bench${crypto.randomBytes(3).toString('hex')}`;
const resultsFile = process.env.BENCH_EXECUTION_OUTPUT
  ? path.resolve(process.env.BENCH_EXECUTION_OUTPUT)
  : path.join(__dirname, 'results', 'execution.json');
// BENCH_EXECUTION_SERVE=1: serve mode (see serve()), for bench:tracing, which runs two of these side by side.
const serveMode = process.env.BENCH_EXECUTION_SERVE === '1';
const tracingMode = process.env.BENCH_EXECUTION_TRACING ?? 'default';
// BENCH_EXECUTION_BROKER_SIM_TRACING=off: broker-sim (a stand-in for the brokers' trade servers) runs with its
// OpenTelemetry SDK off whatever the tracing mode, so a comparison of tracing costs counts the project's spans only.
const brokerSimTracingOff = process.env.BENCH_EXECUTION_BROKER_SIM_TRACING === 'off';
// bench:tracing interleaves the output of two stacks; the mode tells their lines apart.
const log = (line: string) => process.stderr.write(`[bench:execution${serveMode ? ` ${tracingMode}` : ''}] ${line}\n`);
const profileDirectory = process.env.BENCH_EXECUTION_PROFILE ? path.resolve(process.env.BENCH_EXECUTION_PROFILE) : undefined;
// BENCH_EXECUTION_SERIES=rest measures the REST series only (bench:tracing compares nothing else, so serve mode
// skips the floor's warm-up too).
const restOnly = serveMode || process.env.BENCH_EXECUTION_SERIES === 'rest';
// BENCH_EXECUTION_RATE=<batches/s> adds a REST run at that fixed offered load (CPU per batch comparable across runs).
const fixedRatePerS = Number(process.env.BENCH_EXECUTION_RATE ?? 0);
// Closed-loop REST batches at concurrency 4 before measuring, so V8 has compiled the hot paths (ours and the
// libraries') as it has in a service that has been up for a while.
const warmupSeconds = Number(process.env.BENCH_EXECUTION_WARMUP_SECONDS ?? 3);

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { url: string; functionName: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Share of sampled time per package (or Node internals, GC, idle) in one CPU profile. */
function summarizeProfile(file: string): Array<[string, number]> {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const urls = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const totals = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const frame = urls.get(id)!;
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    let bucket = frame.functionName.startsWith('(') ? frame.functionName : 'other';
    if (frame.url.includes('node_modules/')) {
      const parts = frame.url.split('node_modules/').at(-1)!.split('/');
      bucket = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
    } else if (frame.url.startsWith('node:')) bucket = 'node internals';
    else if (frame.url.includes('/services/')) bucket = `services/${frame.url.split('/services/')[1]!.split('/')[0]}`;
    totals.set(bucket, (totals.get(bucket) ?? 0) + delta);
  });
  return [...totals]
    .map(([bucket, time]) => [bucket, time / Math.max(1, total)] as [string, number])
    .sort((left, right) => right[1] - left[1]);
}

/** The name the benchmark's own process (load generator, OTLP receiver) has in the CPU and instruction figures. */
const loadGeneratorName = 'bench (load + OTLP receiver)';

/**
 * CPU time (user + system, ms) used so far by each process of the run, from /proc (Linux; empty elsewhere).
 * Unlike throughput, CPU per batch barely moves when other work shares the machine, so it shows what tracing
 * costs even on a noisy host.
 */
function cpuTimesMs(pids: Map<string, number>): Map<string, number> {
  const times = new Map<string, number>();
  for (const [name, pid] of pids) {
    // Undefined off Linux, or once the process is gone.
    const used = namedProcessCpuMs(name, pid);
    if (used !== undefined) times.set(name, used);
  }
  const own = process.cpuUsage();
  times.set(loadGeneratorName, (own.user + own.system) / 1000);
  return times;
}

/** The store and NATS servers this run started, found by their data directory on the command line. */
function infrastructurePids(dataDirectory: string): Map<string, number> {
  const pids = new Map<string, number>();
  if (!fs.existsSync('/proc')) return pids;
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const commandLine = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!commandLine.includes(dataDirectory)) continue;
      // FERRETDB_BACKEND=postgresql: the PostgreSQL server behind FerretDB (its tree, measured whole).
      if (commandLine.split('\0')[0]!.endsWith('/postgres')) pids.set('postgresql', Number(entry));
      else if (commandLine.includes('ferretdb')) pids.set('ferretdb', Number(entry));
      else if (commandLine.includes('nats-server')) pids.set('nats-server', Number(entry));
    } catch {
      // Exited meanwhile.
    }
  }
  return pids;
}

/** CPU ms per batch of each process between two readings, plus their total. */
function cpuPerBatch(before: Map<string, number>, after: Map<string, number>, batches: number): Record<string, number> {
  const perBatch: Record<string, number> = {};
  let total = 0;
  for (const [name, endMs] of after) {
    const usedMs = endMs - (before.get(name) ?? endMs);
    total += usedMs;
    perBatch[name] = round(usedMs / Math.max(1, batches), 2)!;
  }
  perBatch.total = round(total / Math.max(1, batches), 2)!;
  return perBatch;
}

/**
 * Counts the instructions each process retires while a run lasts (Linux `perf stat`, when it is installed and
 * allowed). Instructions per batch hardly move with the load other work puts on the machine, so they compare
 * two configurations more steadily than CPU time does.
 */
function countInstructions(pids: Map<string, number>): () => Promise<Map<string, number>> {
  const counters = [...pids].map(([name, pid]) => {
    const child = spawn('perf', ['stat', '-x', ',', '-e', 'instructions', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const done = new Promise<number | undefined>((resolve) => {
      child.on('error', () => resolve(undefined));
      child.on('close', () => {
        const line = output.split('\n').find((candidate) => candidate.includes(',instructions'));
        const count = Number(line?.split(',')[0]);
        resolve(Number.isFinite(count) && count > 0 ? count : undefined);
      });
    });
    return { name, child, done };
  });
  return async () => {
    const counts = new Map<string, number>();
    for (const counter of counters) counter.child.kill('SIGINT');
    for (const counter of counters) {
      const count = await counter.done;
      if (count !== undefined) counts.set(counter.name, count);
    }
    return counts;
  };
}

/** Millions of instructions per batch of each process, plus their total. */
function instructionsPerBatch(counts: Map<string, number>, batches: number): Record<string, number> {
  const perBatch: Record<string, number> = {};
  let total = 0;
  for (const [name, count] of counts) {
    total += count;
    perBatch[name] = round(count / 1e6 / Math.max(1, batches), 2)!;
  }
  if (counts.size > 0) perBatch.total = round(total / 1e6 / Math.max(1, batches), 2)!;
  return perBatch;
}

const servers = [
  { platform: 'mt5', server: 'AlphaFX-Live', suffix: '' },
  { platform: 'mt5', server: 'BetaMarkets-Server', suffix: '.xx' },
  { platform: 'mt4', server: 'GammaTrade-Real', suffix: 'm' },
  { platform: 'mt4', server: 'DeltaPrime-ECN', suffix: '-ecn' },
  { platform: 'mt4', server: 'OmegaCapital-Demo', suffix: '' },
] as const;

/** A REST run also carries the CPU time and instructions each process spent per batch (bench:tracing compares them). */
export type ExecutionRun = BenchRun & {
  offered_per_s?: number;
  cpu_ms_per_batch?: Record<string, number>;
  project_cpu_ms_per_batch?: number;
  instructions_millions_per_batch?: Record<string, number>;
};

/** CPU per batch of the project's own processes together. */
function projectCpu(cpu: Record<string, number>): number {
  return round(
    projectProcesses.reduce((sum, name) => sum + (cpu[name] ?? 0), 0),
    2,
  )!;
}

interface BenchAccount {
  id: string;
  platform: 'mt4' | 'mt5';
  server: string;
  login: string;
  password: string;
  symbol: string;
}

const round = roundTo;

function summarize(label: string, series: string, concurrency: number, latencies: number[], durationS: number, errors: number): BenchRun {
  return runFromLatencies({ label, series, concurrency, unit: 'batches' }, latencies, durationS, errors);
}

/**
 * Starts `operation` at a fixed rate for `seconds` (open loop, at most `inFlightMax` at once: a start that
 * finds them all busy is counted as an error), so two configurations are compared at the same offered load.
 */
async function fixedRate(
  ratePerS: number,
  seconds: number,
  inFlightMax: number,
  operation: () => Promise<boolean>,
): Promise<{ latencies: number[]; errors: number; durationS: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  const started = process.hrtime.bigint();
  const startedMs = performance.now();
  const total = Math.round(ratePerS * seconds);
  const pending: Array<Promise<void>> = [];
  for (let index = 0; index < total; index++) {
    const dueMs = startedMs + (index * 1000) / ratePerS;
    const waitMs = dueMs - performance.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    if (inFlight >= inFlightMax) {
      errors += 1;
      continue;
    }
    inFlight += 1;
    const operationStarted = process.hrtime.bigint();
    pending.push(
      operation()
        .catch((error: unknown) => {
          if (errors === 0) log(`first failure: ${(error as Error).message}`);
          return false;
        })
        .then((ok) => {
          inFlight -= 1;
          if (ok) latencies.push(Number(process.hrtime.bigint() - operationStarted) / 1e6);
          else errors += 1;
        }),
    );
  }
  await Promise.all(pending);
  return { latencies, errors, durationS: Number(process.hrtime.bigint() - started) / 1e9 };
}

/**
 * Runs `operation` in `concurrency` closed loops for `seconds`; each resolves to whether it succeeded.
 * `stopEarly` lets a stop asked for during the warm-up end it at once instead of after its full length.
 */
async function closedLoop(
  concurrency: number,
  seconds: number,
  operation: () => Promise<boolean>,
  stopEarly: () => boolean = () => false,
): Promise<{ latencies: number[]; errors: number; durationS: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const started = process.hrtime.bigint();
  const endAt = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < endAt && !stopEarly()) {
        const operationStarted = process.hrtime.bigint();
        const ok = await operation().catch((error: unknown) => {
          if (errors === 0) log(`first failure: ${(error as Error).message}`);
          return false;
        });
        const latencyMs = Number(process.hrtime.bigint() - operationStarted) / 1e6;
        if (ok) latencies.push(latencyMs);
        else errors += 1;
      }
    }),
  );
  return { latencies, errors, durationS: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** What a run has started so far, filled in step by step, so a teardown at any point stops exactly that. */
interface BenchState {
  /** A stop was asked for while the setup still runs: it ends at its next step instead of finishing. */
  stopRequested: boolean;
  dataDirectory?: string;
  brokerSimJournal?: string;
  infrastructure?: LocalInfrastructure;
  receiver?: OtlpReceiver;
  census: boolean;
  otlpProtocol?: string | undefined;
  stack?: Stack;
  mongo?: Awaited<ReturnType<typeof connectMongo>>;
  nats?: Awaited<ReturnType<typeof connectNats>>;
  pool?: ReturnType<typeof createHttpPool>;
  execution?: ReturnType<typeof createUnaryClient>;
  droppedSpans: Map<string, number>;
  otelWarnings: string[];
}

/** The three kinds of batch the runs measure, for one batch shape. */
interface ShapeBatches {
  name: string;
  legs: number;
  restBatch: () => Promise<boolean>;
  grpcBatch: () => Promise<boolean>;
  floorBatch: () => Promise<boolean>;
}

/** A stack that is up and warmed up, with the batches of every shape (serve mode uses the first shape's REST batch). */
interface Bench {
  shapes: ShapeBatches[];
  /** GET /v1/positions over the 20 accounts, and the same reads as NATS requests straight to the connectors. */
  positions: { rest: () => Promise<boolean>; floor: () => Promise<boolean> };
  restBatch: () => Promise<boolean>;
  /** The services, FerretDB and NATS of this stack (the load generator is added where instructions are counted). */
  measuredPids: Map<string, number>;
  perfAvailable: boolean;
  /** FerretDB's Prometheus counters, for the store commands a batch costs; absent with MONGODB_URL. */
  storeMetricsUrl?: string;
}

const newBenchState = (): BenchState => ({ stopRequested: false, census: false, droppedSpans: new Map(), otelWarnings: [] });

/**
 * Starts this run's own FerretDB and NATS (own data directory, so their CPU is this stack's alone), the services,
 * 20 accounts and the warm-up; shared by the normal run and serve mode.
 */
async function setUp(state: BenchState): Promise<Bench> {
  const stopIfAsked = () => {
    if (state.stopRequested) throw new Error('stopped before the setup finished');
  };
  const dataDirectory = (state.dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-bench-execution-')));
  const infrastructure = (state.infrastructure = await startLocalInfrastructure({ dataDirectory, log, storeMetrics: true }));
  stopIfAsked();
  // broker-sim stands in for the brokers at zero latency (BROKER_SIM_LATENCY_MS below), but it answers a trade only
  // once its journal line is on disk, and an emulated terminal carries out its trades one by one: on a disk shared
  // with other work each trade waited for a sync, and the disk, not the project, set a terminal's trades per second
  // (a 4×5 batch is five syncs one after another on each terminal). So its journal is kept in memory where the
  // machine has a tmpfs; BENCH_EXECUTION_BROKER_SIM_JOURNAL=disk keeps it in the data directory.
  const journalInMemory = process.env.BENCH_EXECUTION_BROKER_SIM_JOURNAL !== 'disk' && fs.existsSync('/dev/shm');
  if (journalInMemory) state.brokerSimJournal = path.join('/dev/shm', `mtx-bench-execution-${path.basename(dataDirectory)}.ndjson`);
  log(`broker-sim's journal: ${state.brokerSimJournal ?? 'in the data directory (on disk)'}`);
  // BENCH_EXECUTION_TRACING: `off` disables the OpenTelemetry SDK in every service; `metrics` exports the metrics
  // only, tracing off whole (OTEL_TRACES_EXPORTER=none); `export` exports every span and metric over OTLP/HTTP to a
  // receiver in this process; unset keeps the default (SDK on, nothing exported).
  // The receiver stands in for a collector on another machine, so it only counts what it is sent (discard mode),
  // unless BENCH_EXECUTION_SPAN_CENSUS=true asks it to parse and keep every span (JSON encoding then).
  // BENCH_EXECUTION_OTLP_PROTOCOL picks the encoding otherwise (unset: the services' default).
  const census = (state.census = process.env.BENCH_EXECUTION_SPAN_CENSUS === 'true');
  const receiver = tracingMode === 'export' || tracingMode === 'metrics' ? await startOtlpReceiver({ discard: !census }) : undefined;
  state.receiver = receiver;
  const otlpProtocol = (state.otlpProtocol = census ? 'http/json' : process.env.BENCH_EXECUTION_OTLP_PROTOCOL);
  const tracingEnv: Record<string, string> =
    tracingMode === 'off'
      ? { OTEL_SDK_DISABLED: 'true' }
      : receiver
        ? // WARN diagnostics show spans a batch span processor had to drop (its queue full).
          {
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            ...(otlpProtocol ? { OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol } : {}),
            OTEL_LOG_LEVEL: 'warn',
            ...(tracingMode === 'metrics' ? { OTEL_TRACES_EXPORTER: 'none' } : {}),
          }
        : {};
  const { droppedSpans, otelWarnings } = state;
  const stack = (state.stack = await startStack({
    mongodbUrl: infrastructure.mongodbUrl,
    natsUrl: infrastructure.natsUrl,
    dataDirectory,
    // notifications records every batch.settled execution announces (its intake is on every batch's cost).
    services: ['execution', 'broker-sim', 'connector-mt4', 'connector-mt5', 'gateway', 'notifications'],
    env: {
      MONGODB_DATABASE_PREFIX: prefix,
      TERMINAL_SUBJECT_ROOT: subjectRoot,
      SEATS_REQUIRED: 'false',
      BROKER_SIM_LATENCY_MS: '0',
      PRICE_TICK_MS: '0',
      RECONCILE_INTERVAL_MS: '5000',
      RATE_LIMIT_EXECUTION_PER_MINUTE: '100000000',
      RATE_LIMIT_OTHER_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...(state.brokerSimJournal ? { BROKER_SIM_JOURNAL_FILE: state.brokerSimJournal } : {}),
      ...tracingEnv,
      ...(profileDirectory
        ? { NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-profile-preload.cjs')}`, BENCH_PROFILE_DIR: profileDirectory }
        : {}),
    },
    ...(brokerSimTracingOff ? { serviceEnv: { 'broker-sim': { OTEL_SDK_DISABLED: 'true' } } } : {}),
    onLine: (service, line) => {
      const dropped = /Dropped (\d+) spans/.exec(line);
      if (dropped) droppedSpans.set(service, (droppedSpans.get(service) ?? 0) + Number(dropped[1]));
      else if (receiver && !line.startsWith('{') && otelWarnings.length < 20) otelWarnings.push(`[${service}] ${line.slice(0, 300)}`);
      if (/"level":(50|60)/.test(line)) process.stderr.write(`[${service}] ${line}\n`);
    },
  }));
  stopIfAsked();
  const mongo = (state.mongo = await connectMongo(infrastructure.mongodbUrl));
  const gatewayStore = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
  const customer = await createCustomer(gatewayStore, 'bench');
  const key = (await issueKey(gatewayStore, customer.customer_id, 'full')).key;
  const controlUrl = stack.env.BROKER_SIM_HTTP_URL!;

  const pool = (state.pool = createHttpPool(stack.gatewayUrl, Math.max(4, ...concurrencies, fixedRatePerS ? 64 : 0)));
  const rest = (method: HttpMethod, pathname: string, body?: unknown) => restCall(pool, key, method, pathname, body);

  log('connecting 20 accounts (10 MT4, 10 MT5) with large balances');
  const accounts: BenchAccount[] = [];
  for (let index = 0; index < 20; index++) {
    stopIfAsked();
    const definition = servers[index % servers.length]!;
    const login = String(90_000 + index);
    const password = `bench-${login}`;
    await fetch(`${controlUrl}/control/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: definition.server, login, password, balance: 1_000_000_000, leverage: 500 }),
    });
    const created = await rest('POST', '/v1/accounts', { platform: definition.platform, server: definition.server, login, password });
    if (created.status !== 201) throw new Error(`account creation failed: ${created.body}`);
    accounts.push({
      id: JSON.parse(created.body).id,
      platform: definition.platform,
      server: definition.server,
      login,
      password,
      symbol: `EURUSD${definition.suffix}`,
    });
  }

  let sequence = 0;
  const execution = (state.execution = createUnaryClient<any>(
    'execution/v1/execution.proto',
    'mtx.execution.v1.ExecutionService',
    stack.env.EXECUTION_GRPC_URL!,
    30_000,
  ));
  const nats = (state.nats = await connectNats(infrastructure.natsUrl, 'bench-floor', createLogger('bench', { level: 'silent' })));
  const batchesOf = (shape: (typeof shapes)[number]): ShapeBatches => {
    const shapeAccounts = accounts.slice(0, shape.accounts);
    const legs = shape.accounts * shape.legsPerAccount;
    const batchBody = () => {
      sequence += 1;
      return {
        defaults: { volume: 0.1, operation: sequence % 2 === 0 ? 'buy' : 'sell' },
        orders: shapeAccounts.flatMap((account) =>
          Array.from({ length: shape.legsPerAccount }, () => ({ account_id: account.id, symbol: account.symbol })),
        ),
      };
    };
    return {
      name: shape.name,
      legs,
      restBatch: async () => {
        const response = await rest('POST', '/v1/orders', batchBody());
        if (response.status !== 200 || (JSON.parse(response.body) as { summary: { filled: number } }).summary.filled !== legs)
          throw new Error(`batch not filled: ${response.status} ${response.body.slice(0, 500)}`);
        return true;
      },
      grpcBatch: async () => {
        const body = batchBody();
        const response = await execution.call<{ summary: { filled: number } }>('PlaceOrders', {
          customer_id: customer.customer_id,
          defaults: body.defaults,
          orders: body.orders.map((order) => ({ account_id: order.account_id, fields: { symbol: order.symbol } })),
        });
        return response.summary.filled === legs;
      },
      floorBatch: async () => {
        sequence += 1;
        const batchId = `flr_${crypto.randomBytes(10).toString('hex')}`;
        const deadline = Date.now() + 5_000;
        const operation = sequence % 2 === 0 ? 'buy' : 'sell';
        const replies = await Promise.all(
          shapeAccounts.map((account, accountIndex) =>
            nats.request(
              terminalSubject(subjectRoot, account.platform, account.id, 'place'),
              connectorCodecs.placeRequest.encode({
                account_id: account.id,
                legs: Array.from({ length: shape.legsPerAccount }, (_, legIndex) => {
                  const index = accountIndex * shape.legsPerAccount + legIndex;
                  return { client_id: `${batchId}-${index}`, leg_index: index, symbol: account.symbol, operation, volume: 0.1 };
                }),
                deadline_unix_ms: deadline,
                batch_id: batchId,
              }),
              { timeout: 5_000 },
            ),
          ),
        );
        return replies.every((reply) =>
          connectorCodecs.placeReply.decode(reply.data).results.every((result) => result.status === 'filled'),
        );
      },
    };
  };
  const shapeBatches = shapes.map(batchesOf);
  const { restBatch } = shapeBatches[0]!;
  // The batches leave thousands of positions open on the trading accounts; a read is measured on 20 accounts of
  // their own holding what a busy account holds (4 positions and a pending order each), so it measures the path.
  log('connecting 20 more accounts for the positions read, 4 positions and a pending order each');
  const readAccounts: BenchAccount[] = [];
  for (let index = 0; index < 20; index++) {
    stopIfAsked();
    const definition = servers[index % servers.length]!;
    const login = String(91_000 + index);
    const password = `bench-${login}`;
    const control = (pathname: string, body: unknown) =>
      fetch(`${controlUrl}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await control('/control/accounts', { server: definition.server, login, password, balance: 1_000_000_000, leverage: 500 });
    const created = await rest('POST', '/v1/accounts', { platform: definition.platform, server: definition.server, login, password });
    if (created.status !== 201) throw new Error(`account creation failed: ${created.body}`);
    const symbol = `EURUSD${definition.suffix}`;
    for (const type of ['buy', 'sell', 'buy', 'sell'])
      await control(`/control/accounts/${definition.server}/${login}/positions`, { symbol, type, volume: 0.1 });
    await control(`/control/accounts/${definition.server}/${login}/orders`, { symbol, type: 'buy_limit', volume: 0.1, price: 0.5 });
    readAccounts.push({
      id: JSON.parse(created.body).id,
      platform: definition.platform,
      server: definition.server,
      login,
      password,
      symbol,
    });
  }
  const positionsPath = `/v1/positions?${readAccounts.map((account) => `account_id=${account.id}`).join('&')}&kind=any`;
  const positions = {
    rest: async () => {
      const response = await rest('GET', positionsPath);
      const body = JSON.parse(response.body) as { summary?: { accounts: number; unavailable: number; unknown: number } };
      if (response.status !== 200 || body.summary?.accounts !== 20 || body.summary.unavailable + body.summary.unknown > 0)
        throw new Error(`positions not read: ${response.status} ${response.body.slice(0, 300)}`);
      return true;
    },
    floor: async () => {
      const deadline = Date.now() + 5_000;
      const replies = await Promise.all(
        readAccounts.map((account) =>
          nats.request(
            terminalSubject(subjectRoot, account.platform, account.id, 'positions'),
            connectorCodecs.positionsRequest.encode({
              account_id: account.id,
              selector: { symbol: '*', symbol_match: 'exact', side: 'any', kind: 'any' },
              deadline_unix_ms: deadline,
            }),
            { timeout: 5_000 },
          ),
        ),
      );
      return replies.every((reply) => connectorCodecs.positionsReply.decode(reply.data).status === 'ok');
    },
  };

  log(`warming up (${warmupSeconds} s)`);
  const stopEarly = () => state.stopRequested;
  for (const shape of shapeBatches) {
    await closedLoop(4, warmupSeconds / shapeBatches.length, shape.restBatch, stopEarly);
    if (!restOnly) await closedLoop(4, 2 / shapeBatches.length, shape.floorBatch, stopEarly);
  }
  stopIfAsked();

  const perfAvailable =
    process.platform === 'linux' &&
    !!spawnSync('perf', ['stat', '-x', ',', '-e', 'instructions', 'true'], { encoding: 'utf8' }).stderr?.includes(',instructions');
  const measuredPids = new Map([
    ...[...stack.services.values()].flatMap((service) => (service.pid ? [[service.name, service.pid] as [string, number]] : [])),
    ...infrastructurePids(dataDirectory),
  ]);
  return {
    shapes: shapeBatches,
    positions,
    restBatch,
    measuredPids,
    perfAvailable,
    ...(infrastructure.store ? { storeMetricsUrl: infrastructure.store.metricsUrl } : {}),
  };
}

/** Stops whatever `state` holds (clients, services, OTLP receiver, FerretDB, NATS, data directory) and reports on it. */
async function tearDown(state: BenchState): Promise<void> {
  // Our own clients first, so nothing of the benchmark still talks to the stack while it stops; a client that
  // fails to close must not keep the processes below from being stopped.
  const report = (what: string) => (error: unknown) => log(`closing ${what} failed: ${(error as Error).message}`);
  state.execution?.close();
  await state.nats?.close().catch(report('the NATS connection'));
  await state.pool?.destroy().catch(report('the REST connections'));
  await state.mongo?.close().catch(report('the store connection'));
  const { stack, receiver, droppedSpans, otelWarnings } = state;
  const pids = new Map([...(stack?.services ?? new Map()).values()].map((service) => [String(service.pid), service.name]));
  await stack?.stop();
  if (receiver) {
    const { traces, metrics, logs } = receiver.traffic;
    const size = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`;
    log(
      `OTLP received (${state.otlpProtocol ?? "the services' default encoding"}): traces ${traces.requests} requests ${size(traces.bytes)}, metrics ${metrics.requests} requests ${size(metrics.bytes)}, logs ${logs.requests} requests ${size(logs.bytes)}`,
    );
    log(
      droppedSpans.size === 0
        ? 'no span dropped by a batch span processor'
        : `spans DROPPED by full batch span processor queues: ${[...droppedSpans].map(([service, count]) => `${service} ${count}`).join(', ')}`,
    );
    for (const warning of otelWarnings) log(`OpenTelemetry diagnostic: ${warning}`);
  }
  if (receiver && state.census) {
    const durations = new Map<string, number[]>();
    for (const span of receiver.spans) {
      const key = `${span.service} ${span.name}`;
      durations.set(key, [...(durations.get(key) ?? []), Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6]);
    }
    log(`span census: ${receiver.spans.length} spans in all (count, median duration, name)`);
    for (const [name, values] of [...durations.entries()].sort((a, b) => b[1].length - a[1].length)) {
      const sorted = values.sort((left, right) => left - right);
      log(`span census: ${sorted.length} ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms ${name}`);
    }
  }
  await receiver?.close();
  await state.infrastructure?.stop();
  if (state.dataDirectory) fs.rmSync(state.dataDirectory, { recursive: true, force: true });
  if (state.brokerSimJournal) fs.rmSync(state.brokerSimJournal, { force: true });
  if (profileDirectory && fs.existsSync(profileDirectory)) {
    for (const file of fs.readdirSync(profileDirectory).filter((name) => name.endsWith('.cpuprofile'))) {
      const service = pids.get(file.split('.')[1] ?? '');
      if (!service) continue;
      const top = summarizeProfile(path.join(profileDirectory, file)).slice(0, 8);
      log(`profile ${service}: ${top.map(([bucket, share]) => `${bucket} ${(share * 100).toFixed(1)}%`).join(', ')}`);
    }
  }
}

/** The normal run's series at every concurrency (and the fixed rate), written to the results file. */
async function measure(bench: Bench, loadAtStart: number): Promise<void> {
  const { measuredPids, perfAvailable } = bench;
  const runs: BenchRun[] = [];
  const series = (shape: string) => ({
    rest: `REST ${shape}: gateway → execution → NATS → connectors → broker-sim`,
    grpc: `gRPC ${shape}: execution → NATS → connectors → broker-sim`,
    floor: `floor ${shape}: the same NATS requests straight to the connectors`,
  });
  const byShape = new Map<string, Map<number, { rest: ExecutionRun; grpc: BenchRun; floor: BenchRun }>>();
  for (const shape of bench.shapes) {
    const byConcurrency = new Map<number, { rest: ExecutionRun; grpc: BenchRun; floor: BenchRun }>();
    byShape.set(shape.name, byConcurrency);
    const names = series(shape.name);
    for (const concurrency of concurrencies) {
      log(`${shape.name}, concurrency ${concurrency}: REST`);
      const cpuBefore = cpuTimesMs(measuredPids);
      const commandsBefore = await readStoreCommands(bench.storeMetricsUrl);
      const stopCounting = perfAvailable ? countInstructions(new Map([...measuredPids, [loadGeneratorName, process.pid]])) : undefined;
      const restRun = await closedLoop(concurrency, runSeconds, shape.restBatch);
      const cpu = cpuPerBatch(cpuBefore, cpuTimesMs(measuredPids), restRun.latencies.length + restRun.errors);
      const storeCommands = describeStoreCommandsPerUnit(
        commandsBefore,
        await readStoreCommands(bench.storeMetricsUrl),
        restRun.latencies.length + restRun.errors,
      );
      const instructions = instructionsPerBatch((await stopCounting?.()) ?? new Map(), restRun.latencies.length + restRun.errors);
      const skipped = { latencies: [], errors: 0, durationS: 0 };
      if (!restOnly) log(`${shape.name}, concurrency ${concurrency}: gRPC`);
      const grpcRun = restOnly ? skipped : await closedLoop(concurrency, runSeconds, shape.grpcBatch);
      if (!restOnly) log(`${shape.name}, concurrency ${concurrency}: floor`);
      const floorRun = restOnly ? skipped : await closedLoop(concurrency, runSeconds, shape.floorBatch);
      const entry = {
        rest: {
          ...summarize(
            `REST ${shape.name} batch (${shape.legs} legs), concurrency ${concurrency}`,
            names.rest,
            concurrency,
            restRun.latencies,
            restRun.durationS,
            restRun.errors,
          ),
          cpu_ms_per_batch: cpu,
          project_cpu_ms_per_batch: projectCpu(cpu),
          ...(instructions.total ? { instructions_millions_per_batch: instructions } : {}),
        } as ExecutionRun,
        grpc: summarize(
          `gRPC ${shape.name} batch, concurrency ${concurrency}`,
          names.grpc,
          concurrency,
          grpcRun.latencies,
          grpcRun.durationS,
          grpcRun.errors,
        ),
        floor: summarize(
          `floor ${shape.name}: NATS requests, concurrency ${concurrency}`,
          names.floor,
          concurrency,
          floorRun.latencies,
          floorRun.durationS,
          floorRun.errors,
        ),
      };
      byConcurrency.set(concurrency, entry);
      log(
        `  REST  p50 ${entry.rest.p50_ms} ms, p99 ${entry.rest.p99_ms} ms, ${entry.rest.throughput_per_s} batches/s, errors ${entry.rest.errors}`,
      );
      log(
        `  REST  CPU ms per batch: ${Object.entries(cpu)
          .map(([name, ms]) => `${name} ${ms}`)
          .join(', ')}; the project's own processes ${entry.rest.project_cpu_ms_per_batch}`,
      );
      if (storeCommands) log(`  REST  ${storeCommands.replace('per unit', 'per batch')}`);
      if (instructions.total)
        log(
          `  REST  instructions per batch (millions): ${Object.entries(instructions)
            .map(([name, count]) => `${name} ${count}`)
            .join(', ')}`,
        );
      if (!restOnly)
        log(
          `  gRPC  p50 ${entry.grpc.p50_ms} ms, p99 ${entry.grpc.p99_ms} ms, ${entry.grpc.throughput_per_s} batches/s, errors ${entry.grpc.errors}`,
        );
      if (!restOnly)
        log(
          `  floor p50 ${entry.floor.p50_ms} ms, p99 ${entry.floor.p99_ms} ms, ${entry.floor.throughput_per_s} batches/s, errors ${entry.floor.errors}`,
        );
    }
    // The targets (docs/performance.md, "The targets"), per shape: unloaded latency (and what the project adds over the bare fan-out), then
    // throughput with the CPU it costs.
    const first = byConcurrency.get(1);
    if (first) {
      const added =
        first.floor.p50_ms !== null && !restOnly
          ? {
              metric: 'p50_ms',
              value: round(first.floor.p50_ms + 3)!,
              comparison: 'at_most' as const,
              description: 'added latency over the floor at p50 ≤ 3 ms',
            }
          : undefined;
      first.rest.floor = {
        metric: 'p50_ms',
        value: 5,
        comparison: 'at_most',
        description: 'c=1: p50 ≤ 5 ms, p99 ≤ 12 ms, and at most 3 ms over the direct-NATS floor at p50',
        and: { metric: 'p99_ms', value: 12, comparison: 'at_most', ...(added ? { and: added } : {}) },
      };
    }
    const busiest = byConcurrency.get(64);
    if (busiest) {
      busiest.rest.floor = {
        metric: 'throughput_per_s',
        value: 500,
        comparison: 'at_least',
        description: `≥ 500 batches/s (${500 * shape.legs} legs/s) at concurrency 64, with ≤ 3 ms of CPU per batch in the project's own processes (${projectProcesses.join(', ')})`,
        and: { metric: 'project_cpu_ms_per_batch', value: 3, comparison: 'at_most' },
      };
    }
    for (const entry of byConcurrency.values()) runs.push(...(restOnly ? [entry.rest] : [entry.rest, entry.grpc, entry.floor]));
  }

  if (!restOnly) {
    // Reading every account's open positions in one call costs what a batch's fan-out costs: the floor is the
    // same 20 NATS requests made directly.
    log('GET /v1/positions over 20 accounts, concurrency 1: REST');
    const restRead = await closedLoop(1, runSeconds, bench.positions.rest);
    log('GET /v1/positions over 20 accounts, concurrency 1: floor');
    const floorRead = await closedLoop(1, runSeconds, bench.positions.floor);
    const floorRun = summarize(
      'floor positions: 20 NATS reads, concurrency 1',
      'floor positions: the same reads straight to the connectors',
      1,
      floorRead.latencies,
      floorRead.durationS,
      floorRead.errors,
    );
    const restRun = summarize(
      'REST GET /v1/positions (20 accounts), concurrency 1',
      'REST positions: gateway → execution → NATS → connectors → broker-sim',
      1,
      restRead.latencies,
      restRead.durationS,
      restRead.errors,
    );
    if (floorRun.p50_ms !== null)
      restRun.floor = {
        metric: 'p50_ms',
        value: round(floorRun.p50_ms + 3)!,
        comparison: 'at_most',
        description: 'a 20-account read adds ≤ 3 ms at p50 over the direct-NATS floor',
      };
    runs.push(restRun, floorRun);
    log(`  positions REST p50 ${restRun.p50_ms} ms, p99 ${restRun.p99_ms} ms; floor p50 ${floorRun.p50_ms} ms, p99 ${floorRun.p99_ms} ms`);
  }

  if (fixedRatePerS) {
    log(`fixed rate ${fixedRatePerS} batches/s: REST`);
    const cpuBefore = cpuTimesMs(measuredPids);
    const stopCounting = perfAvailable ? countInstructions(new Map([...measuredPids, [loadGeneratorName, process.pid]])) : undefined;
    const rateRun = await fixedRate(fixedRatePerS, runSeconds, 64, bench.restBatch);
    const cpu = cpuPerBatch(cpuBefore, cpuTimesMs(measuredPids), rateRun.latencies.length + rateRun.errors);
    const instructions = instructionsPerBatch((await stopCounting?.()) ?? new Map(), rateRun.latencies.length + rateRun.errors);
    const run: ExecutionRun = {
      ...summarize(
        `REST ${bench.shapes[0]!.name} batch, fixed rate ${fixedRatePerS}/s`,
        series(bench.shapes[0]!.name).rest,
        1,
        rateRun.latencies,
        rateRun.durationS,
        rateRun.errors,
      ),
      offered_per_s: fixedRatePerS,
      cpu_ms_per_batch: cpu,
      project_cpu_ms_per_batch: projectCpu(cpu),
      ...(instructions.total ? { instructions_millions_per_batch: instructions } : {}),
    };
    runs.push(run);
    log(`  REST  p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, ${run.throughput_per_s} batches/s, errors ${run.errors}`);
    log(
      `  REST  CPU ms per batch: ${Object.entries(cpu)
        .map(([name, ms]) => `${name} ${ms}`)
        .join(', ')}`,
    );
    if (instructions.total)
      log(
        `  REST  instructions per batch (millions): ${Object.entries(instructions)
          .map(([name, count]) => `${name} ${count}`)
          .join(', ')}`,
      );
  }

  const notes: string[] = [
    `1-minute load average ${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0]!.toFixed(1)} at the end on ${os.cpus().length} cores (other work shares this machine).`,
  ];
  for (const [shape, byConcurrency] of byShape)
    for (const [concurrency, entry] of restOnly ? [] : byConcurrency) {
      const added50 = entry.rest.p50_ms !== null && entry.floor.p50_ms !== null ? round(entry.rest.p50_ms - entry.floor.p50_ms) : null;
      const added99 = entry.rest.p99_ms !== null && entry.floor.p99_ms !== null ? round(entry.rest.p99_ms - entry.floor.p99_ms) : null;
      const ratio = entry.rest.p50_ms !== null && entry.floor.p50_ms ? round(entry.rest.p50_ms / entry.floor.p50_ms) : null;
      const gatewayShare = entry.rest.p50_ms !== null && entry.grpc.p50_ms !== null ? round(entry.rest.p50_ms - entry.grpc.p50_ms) : null;
      notes.push(
        `${shape} c=${concurrency}: added over floor p50 ${added50} ms, p99 ${added99} ms; REST/floor p50 ratio ${ratio}; gateway share of p50 ${gatewayShare} ms.`,
      );
    }
  const result: BenchResult = {
    name: 'execution',
    title: 'Multi-account execution: 20-leg batches',
    description: `Batch shapes ${shapes.map((shape) => shape.name).join(', ')} (<accounts>x<legs per account>). POST /v1/orders with 20 legs, one on each of 20 accounts (five simulated brokers, MT4 and MT5), or five on each of 4 accounts, on real processes: gateway, execution, connector-mt4, connector-mt5, notifications (recording each batch.settled) and broker-sim at zero latency, on FerretDB (${storeBackendFromEnvironment() === 'postgresql' ? 'PostgreSQL backend' : 'SQLite'}) and NATS, all on one machine. Closed loop at each concurrency. The same run measures ExecutionService.PlaceOrders over gRPC (no gateway) and the floor: the same NATS requests sent straight to the connectors and awaited together. CPU per batch is each process's user + system time over the run divided by its batches; the project's own processes are ${projectProcesses.join(', ')}.`,
    date: new Date().toISOString(),
    machine: currentMachine(),
    runs,
    notes: notes.join(' '),
  };
  for (const file of writeBenchResult(result, { file: resultsFile })) log(`wrote ${path.relative(process.cwd(), file)}`);
  for (const note of notes) log(note);
}

async function main(): Promise<number> {
  const loadAtStart = os.loadavg()[0]!;
  const state = newBenchState();
  try {
    await measure(await setUp(state), loadAtStart);
  } finally {
    await tearDown(state);
  }
  return 0;
}

/**
 * What bench:tracing asks a stack in serve mode; every command but `stop` is answered with a reply that carries
 * its id. Slices are REST batches (the series bench:tracing compares).
 */
export type ServeCommand =
  | { id: number; type: 'closed-loop'; concurrency: number; seconds: number }
  | { id: number; type: 'fixed-rate'; ratePerS: number; seconds: number }
  | { id: number; type: 'start-counters' }
  | { id: number; type: 'stop-counters' }
  | { type: 'stop' };

/** Counter totals between start-counters and stop-counters, per process: raw, the parent divides by its batches. */
export interface ServeCounters {
  cpuMs: Record<string, number>;
  instructions: Record<string, number>;
}

export type ServeReply =
  | { type: 'ready' }
  | { id: number; type: 'slice'; latenciesMs: number[]; errors: number; durationS: number }
  | { id: number; type: 'counters-started' }
  | ({ id: number; type: 'counters' } & ServeCounters)
  | { id?: number; type: 'error'; message: string };

/**
 * Serve mode (BENCH_EXECUTION_SERVE=1, forked with an IPC channel by bench:tracing): sets up and warms up one
 * stack, answers 'ready', then measures only when the parent asks, so the parent can interleave short slices
 * on two stacks. Stops (and tears everything down) when asked, on SIGINT/SIGTERM, or when the parent goes away,
 * so an interrupted or crashed parent never leaves a FerretDB, NATS or service process behind.
 * Resolves to the exit code once torn down.
 */
async function serve(): Promise<number> {
  const channel = process.send?.bind(process);
  if (!channel) throw new Error('BENCH_EXECUTION_SERVE=1 needs an IPC channel: fork this file (bench:tracing does)');
  // A reply that cannot be delivered means the parent is gone; the disconnect handler then stops the stack.
  const send = (reply: ServeReply) =>
    new Promise<void>((resolve) => {
      try {
        channel(reply, undefined, {}, () => resolve());
      } catch {
        resolve();
      }
    });
  const state = newBenchState();
  let bench: Bench | undefined;
  let counters: { cpuBeforeMs: Map<string, number>; stopCounting: (() => Promise<Map<string, number>>) | undefined } | undefined;
  let setupSettled: Promise<void> = Promise.resolve();
  let stopping = false;
  let finish: (exitCode: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const stop = (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    state.stopRequested = true;
    log(`stopping (${reason})`);
    void (async () => {
      // A teardown while the setup still runs would miss what it starts next; asked to stop, it ends soon.
      await setupSettled;
      await counters?.stopCounting?.();
      await tearDown(state);
    })().then(
      () => finish(exitCode),
      (error: unknown) => {
        log(`teardown failed: ${(error as Error).stack ?? String(error)}`);
        finish(1);
      },
    );
  };
  const handle = async (command: ServeCommand): Promise<void> => {
    if (command.type === 'stop') return stop('asked by bench:tracing', 0);
    if (!bench || stopping) return send({ id: command.id, type: 'error', message: stopping ? 'stopping' : 'not ready yet' });
    try {
      if (command.type === 'closed-loop' || command.type === 'fixed-rate') {
        const slice =
          command.type === 'closed-loop'
            ? await closedLoop(command.concurrency, command.seconds, bench.restBatch)
            : await fixedRate(command.ratePerS, command.seconds, 64, bench.restBatch);
        return await send({
          id: command.id,
          type: 'slice',
          latenciesMs: slice.latencies,
          errors: slice.errors,
          durationS: slice.durationS,
        });
      }
      if (command.type === 'start-counters') {
        if (counters) throw new Error('counters are already running');
        counters = {
          cpuBeforeMs: cpuTimesMs(bench.measuredPids),
          stopCounting: bench.perfAvailable
            ? countInstructions(new Map([...bench.measuredPids, [loadGeneratorName, process.pid]]))
            : undefined,
        };
        // perf needs a moment to attach; the parent's first slice starts on our reply.
        if (counters.stopCounting) await new Promise((resolve) => setTimeout(resolve, 250));
        return await send({ id: command.id, type: 'counters-started' });
      }
      if (!counters) throw new Error('no counters are running');
      const running = counters;
      counters = undefined;
      const cpuAfterMs = cpuTimesMs(bench.measuredPids);
      const counts = (await running.stopCounting?.()) ?? new Map<string, number>();
      const cpuMs = Object.fromEntries([...cpuAfterMs].map(([name, endMs]) => [name, endMs - (running.cpuBeforeMs.get(name) ?? endMs)]));
      return await send({ id: command.id, type: 'counters', cpuMs, instructions: Object.fromEntries(counts) });
    } catch (error) {
      return send({ id: command.id, type: 'error', message: (error as Error).message });
    }
  };
  process.on('message', (command: ServeCommand) => void handle(command));
  process.on('SIGINT', () => stop('SIGINT', 130));
  process.on('SIGTERM', () => stop('SIGTERM', 143));
  // The parent crashed or was killed: nobody will ask for a stop any more.
  process.on('disconnect', () => stop('bench:tracing went away', 1));

  let setupError: unknown;
  setupSettled = setUp(state).then(
    (ready) => {
      bench = ready;
    },
    (error: unknown) => {
      setupError = error;
    },
  );
  await setupSettled;
  if (!stopping && setupError !== undefined) {
    log(`setup failed: ${(setupError as Error).stack ?? String(setupError)}`);
    await send({ type: 'error', message: `setup failed: ${(setupError as Error).message}` });
    stop('setup failed', 1);
  } else if (!stopping) {
    log('ready');
    await send({ type: 'ready' });
  }
  return finished;
}

(serveMode ? serve() : main()).then(
  (exitCode) => process.exit(exitCode),
  (error: unknown) => {
    process.stderr.write(`[bench:execution] failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
