/**
 * `npm run bench:scale`: whether execution's cost grows with the number of accounts behind one gateway, not only
 * with the rate. Real processes (gateway, execution, connector-mt4, connector-mt5, broker-sim at zero latency) on
 * the real store and NATS (started here unless MONGODB_URL / NATS_URL are set).
 *
 * 1. Baseline: one customer with 4 accounts; closed loop at concurrency 16 of 4-leg batches (one leg on each).
 * 2. Registers BENCH_SCALE_ACCOUNTS accounts (default 10,000) over BENCH_SCALE_CUSTOMERS customers (1,000),
 *    spread over 4 broker servers (2 MT4, 2 MT5), through POST /v1/accounts (each checked at its terminal).
 * 3. First touch: one batch per customer on all its accounts (every key and account read from the store once,
 *    as after the caches forgot them), reported on its own.
 * 4. At scale, steady: the same closed loop as 1, each batch for a random customer on 4 random accounts of its own.
 * 5. The baseline's batches again, on the store and connectors as phase 4 left them: how much of the growth is
 *    the store's accumulated data and the sessions held, rather than the spread of work over accounts.
 *
 * Reports p50/p99 and throughput of both phases, the CPU per batch of the project's own processes (gateway,
 * execution, connectors, nats-server, FerretDB) in both, their ratios (target: within 10 %), and how the
 * connectors' resident memory and the terminal streams they hold grow per registered account.
 * Writes test/bench/results/scale.json (and, with `--baseline` or BENCH_WRITE_BASELINE=1, its baseline). Knobs: BENCH_SCALE_ACCOUNTS, BENCH_SCALE_CUSTOMERS, BENCH_SCALE_SECONDS
 * (each measured phase, default 60: the rate limiter's windows are minutes, and at the turn of one every active
 * customer claims a block of slots and the last window's are removed, 1,000 customers' worth at once; a phase of
 * a whole window carries exactly one turn, as a long run does, where a shorter one carries a whole turn or none),
 * BENCH_SCALE_CONCURRENCY (default 16). BENCH_PROFILE_DIR=<dir> profiles the services over each measured phase
 * (CPU.<pid>.<phase>.cpuprofile: 1 the baseline, 2 first touch, 3 at scale, 4 the baseline's batches again after
 * the scale phase).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalInfrastructure } from '@mtx/devstack/local';
import { startStack } from '@mtx/devstack/services';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';
import { createHttpPool, inParallel, restCall, type HttpMethod } from './load-tools';
import { measureProcessCpu } from './process-cpu';
import { describeStoreCommandsPerUnit, readStoreCommands } from './store-commands';
import { writeBenchResult } from './baseline';
import { currentMachine, roundTo, runFromLatencies, type BenchResult, type BenchRun } from './report';

const accountCount = Number(process.env.BENCH_SCALE_ACCOUNTS ?? 10_000);
const customerCount = Number(process.env.BENCH_SCALE_CUSTOMERS ?? 1_000);
const phaseSeconds = Number(process.env.BENCH_SCALE_SECONDS ?? 60);
const profileDirectory = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined;
const concurrency = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 16);
const legsPerBatch = 4;
const accountsPerCustomer = Math.ceil(accountCount / customerCount);
const projectProcesses = ['gateway', 'execution', 'connector-mt4', 'connector-mt5', 'nats-server', 'ferretdb', 'postgresql'];
const servers = [
  { platform: 'mt5', server: 'AlphaFX-Live', suffix: '' },
  { platform: 'mt5', server: 'BetaMarkets-Server', suffix: '.xx' },
  { platform: 'mt4', server: 'GammaTrade-Real', suffix: 'm' },
  { platform: 'mt4', server: 'DeltaPrime-ECN', suffix: '-ecn' },
] as const;
const log = (line: string) => process.stderr.write(`[bench:scale] ${line}\n`);
let failuresShown = 0;

interface ScaleAccount {
  id: string;
  symbol: string;
}

interface ScaleCustomer {
  key: string;
  accounts: ScaleAccount[];
}

/** Resident memory of a process in MiB (VmRSS), or null off Linux or once it is gone. */
function residentMiB(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-bench-scale-'));
  const infrastructure = await startLocalInfrastructure({ dataDirectory, log, storeMetrics: true });
  const prefix = `benchscale${crypto.randomBytes(3).toString('hex')}_`;
  const stack = await startStack({
    mongodbUrl: infrastructure.mongodbUrl,
    natsUrl: infrastructure.natsUrl,
    dataDirectory,
    services: ['execution', 'broker-sim', 'connector-mt4', 'connector-mt5', 'gateway'],
    env: {
      MONGODB_DATABASE_PREFIX: prefix,
      SEATS_REQUIRED: 'false',
      BROKER_SIM_LATENCY_MS: '0',
      PRICE_TICK_MS: '0',
      RECONCILE_INTERVAL_MS: '5000',
      RATE_LIMIT_EXECUTION_PER_MINUTE: '100000000',
      RATE_LIMIT_OTHER_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      OTEL_SDK_DISABLED: 'true',
      ...(profileDirectory
        ? {
            NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-profile-preload.cjs')}`,
            BENCH_PROFILE_DIR: profileDirectory,
            BENCH_PROFILE_ON_SIGNAL: '1',
          }
        : {}),
    },
    onLine: (service, line) => {
      if (/"level":(50|60)/.test(line)) process.stderr.write(`[${service}] ${line.slice(0, 400)}\n`);
    },
  });
  const mongo = await connectMongo(infrastructure.mongodbUrl);
  const pool = createHttpPool(stack.gatewayUrl, Math.max(16, concurrency));
  const rest = (key: string, method: HttpMethod, pathname: string, body?: unknown) => restCall(pool, key, method, pathname, body);
  const controlStats = async () =>
    (await (await fetch(`${stack.env.BROKER_SIM_HTTP_URL}/control/stats`, { signal: AbortSignal.timeout(5_000) })).json()) as {
      terminals_connected: number;
      sessions_open: number;
    };
  const pids = new Map<string, number | undefined>([
    ...[...stack.services.values()].map((service) => [service.name, service.pid] as [string, number | undefined]),
    ['nats-server', infrastructure.nats?.pid],
    ['ferretdb', infrastructure.store?.pid],
    ...(infrastructure.store?.backend ? [['postgresql', infrastructure.store.backend.pid] as [string, number | undefined]] : []),
  ]);
  /** Starts or ends a profiled phase in every service (BENCH_PROFILE_DIR only; see cpu-profile-preload.cjs). */
  const profileSignal = () => {
    if (!profileDirectory) return;
    for (const service of stack.services.values()) if (service.pid !== undefined) process.kill(service.pid, 'SIGUSR2');
  };
  const connectorMemory = () => (residentMiB(pids.get('connector-mt4')) ?? 0) + (residentMiB(pids.get('connector-mt5')) ?? 0);
  const runs: BenchRun[] = [];
  const notes: string[] = [];
  try {
    const gatewayStore = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
    log(`creating ${customerCount} customers`);
    const customers: ScaleCustomer[] = [];
    for (let index = 0; index < customerCount; index += 1) {
      const customer = await createCustomer(gatewayStore, `scale ${index}`);
      customers.push({ key: (await issueKey(gatewayStore, customer.customer_id, 'full')).key, accounts: [] });
    }
    const register = async (accountIndex: number) => {
      const customer = customers[accountIndex % customerCount]!;
      // A customer's k-th account is on server k mod 4, so any 4 consecutive accounts of one customer span all four.
      const definition = servers[Math.floor(accountIndex / customerCount) % servers.length]!;
      const login = String(300_000 + accountIndex);
      // Opened at the broker with room for every trade of the run (hedging accounts keep each position's margin).
      const opened = await fetch(`${stack.env.BROKER_SIM_HTTP_URL}/control/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ server: definition.server, login, password: `scale-${login}`, balance: 1_000_000_000, leverage: 500 }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!opened.ok) throw new Error(`broker account ${login} not opened: ${opened.status} ${await opened.text()}`);
      const created = await rest(customer.key, 'POST', '/v1/accounts', {
        platform: definition.platform,
        server: definition.server,
        login,
        password: `scale-${login}`,
      });
      if (created.status !== 201)
        throw new Error(`account ${accountIndex} not registered: ${created.status} ${created.body.slice(0, 300)}`);
      customer.accounts.push({ id: (JSON.parse(created.body) as { id: string }).id, symbol: `EURUSD${definition.suffix}` });
    };
    const batchFor = async (customer: ScaleCustomer, accounts: ScaleAccount[], sequence: number) => {
      const response = await rest(customer.key, 'POST', '/v1/orders', {
        defaults: { volume: 0.1, operation: sequence % 2 === 0 ? 'buy' : 'sell' },
        orders: accounts.map((account) => ({ account_id: account.id, symbol: account.symbol })),
      });
      const filled =
        response.status === 200 && (JSON.parse(response.body) as { summary: { filled: number } }).summary.filled === accounts.length;
      if (!filled && failuresShown < 3) {
        failuresShown += 1;
        log(`  a batch did not fill: ${response.status} ${response.body.slice(0, 400)}`);
      }
      return filled;
    };
    /** Documents per collection of this stack's databases (db.collection → count). */
    const documentCounts = async (): Promise<Map<string, number>> => {
      const counts = new Map<string, number>();
      const { databases } = await mongo.db('admin').admin().listDatabases({ nameOnly: true });
      for (const { name } of databases.filter((database) => database.name.startsWith(prefix))) {
        for (const collection of await mongo.db(name).listCollections({}, { nameOnly: true }).toArray())
          counts.set(
            `${name.slice(prefix.length)}.${collection.name}`,
            await mongo.db(name).collection(collection.name).countDocuments({}),
          );
      }
      return counts;
    };
    /** Documents added per batch by collection over a phase, largest first (the store's write load, by where it lands). */
    const describeDocumentsPerBatch = (before: Map<string, number>, after: Map<string, number>, batches: number) =>
      `documents per batch: ${[...after]
        .map(([name, count]) => [name, (count - (before.get(name) ?? 0)) / Math.max(1, batches)] as const)
        .filter(([, perBatch]) => Math.abs(perBatch) >= 0.005)
        .sort((left, right) => right[1] - left[1])
        .map(([name, perBatch]) => `${name} ${perBatch.toFixed(2)}`)
        .join(', ')}`;
    /** Closed loop at `concurrency` for `seconds`: latencies, errors and each process's CPU over the phase. */
    const closedLoop = async (seconds: number, pickBatch: () => { customer: ScaleCustomer; accounts: ScaleAccount[] }) => {
      const latencies: number[] = [];
      let errors = 0;
      let sequence = 0;
      const documentsBefore = await documentCounts();
      const stopCpu = measureProcessCpu(pids);
      const commandsBefore = await readStoreCommands(infrastructure.store?.metricsUrl);
      const startedMs = performance.now();
      const untilMs = startedMs + seconds * 1000;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < untilMs) {
            const { customer, accounts } = pickBatch();
            const sentMs = performance.now();
            const ok = await batchFor(customer, accounts, ++sequence).catch(() => false);
            if (ok) latencies.push(performance.now() - sentMs);
            else errors += 1;
          }
        }),
      );
      const durationS = (performance.now() - startedMs) / 1000;
      const spent = stopCpu();
      const cpuPerBatch = Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, ms / Math.max(1, latencies.length)]));
      const projectCpu = projectProcesses.reduce((sum, name) => sum + (cpuPerBatch[name] ?? 0), 0);
      // What the phase asked of the store per batch: the first place to look when the CPU per batch grows with
      // the number of accounts (documents spread over more customers and accounts).
      const commands =
        describeStoreCommandsPerUnit(commandsBefore, await readStoreCommands(infrastructure.store?.metricsUrl), latencies.length) ??
        'store commands: not counted (not the FerretDB this bench started)';
      // Counted after the CPU is read: the counts scan, and are not the phase's work.
      const storeCommands = `${commands}; ${describeDocumentsPerBatch(documentsBefore, await documentCounts(), latencies.length)}`;
      return { latencies, errors, durationS, cpuPerBatch, projectCpu, storeCommands };
    };
    const describeCpu = (cpu: Record<string, number>) =>
      Object.entries(cpu)
        .sort((left, right) => right[1] - left[1])
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(', ');

    const memoryAtStartMiB = connectorMemory();
    const streamsAtStart = (await controlStats()).terminals_connected;
    // Phase 1: the first customer's first 4 accounts, alone.
    for (let index = 0; index < legsPerBatch; index += 1) await register(index * customerCount);
    const baselineCustomer = customers[0]!;
    log(
      `baseline: ${legsPerBatch}-leg batches on ${legsPerBatch} accounts, concurrency ${concurrency}, ${phaseSeconds} s (after 3 s of warm-up)`,
    );
    await closedLoop(3, () => ({ customer: baselineCustomer, accounts: baselineCustomer.accounts.slice(0, legsPerBatch) }));
    profileSignal();
    const baseline = await closedLoop(phaseSeconds, () => ({
      customer: baselineCustomer,
      accounts: baselineCustomer.accounts.slice(0, legsPerBatch),
    }));
    profileSignal();
    const baselineRun = runFromLatencies(
      { label: `${legsPerBatch} accounts`, concurrency, unit: 'batches', series: 'accounts' },
      baseline.latencies,
      baseline.durationS,
      baseline.errors,
    );
    runs.push(baselineRun);
    log(
      `  p50 ${baselineRun.p50_ms} ms, p99 ${baselineRun.p99_ms} ms, ${baselineRun.throughput_per_s} batches/s, errors ${baseline.errors}; CPU ms per batch: ${describeCpu(baseline.cpuPerBatch)}; project ${baseline.projectCpu.toFixed(2)}; ${baseline.storeCommands}`,
    );
    const memoryAtBaselineMiB = connectorMemory();
    const streamsAtBaseline = (await controlStats()).terminals_connected;

    // Phase 2: every other account.
    const remaining = Array.from({ length: accountCount }, (_, index) => index).filter(
      (index) => !(index % customerCount === 0 && index / customerCount < legsPerBatch),
    );
    log(`registering ${remaining.length} more accounts over ${customerCount} customers on ${servers.length} broker servers`);
    const registrationStartedMs = performance.now();
    await inParallel(remaining, concurrency, register);
    const registrationS = (performance.now() - registrationStartedMs) / 1000;
    const memoryAfterRegistrationMiB = connectorMemory();
    const streamsAfterRegistration = (await controlStats()).terminals_connected;
    log(
      `  ${accountCount} accounts in ${registrationS.toFixed(1)} s (${(remaining.length / registrationS).toFixed(0)}/s); connectors ${memoryAfterRegistrationMiB.toFixed(0)} MiB resident, ${streamsAfterRegistration} terminal streams open`,
    );

    // Phase 3: first touch. One batch per customer on all its accounts, as a customer returning after the caches
    // forgot it would: every key and account is read from the store once. Reported, then the steady state.
    const eligible = customers.filter((customer) => customer.accounts.length >= legsPerBatch);
    log(`first touch: one batch per customer on all its accounts (${eligible.length} batches), concurrency ${concurrency}`);
    const firstTouchLatencies: number[] = [];
    let firstTouchErrors = 0;
    let firstTouchLegs = 0;
    profileSignal();
    const stopFirstTouchCpu = measureProcessCpu(pids);
    const firstTouchStartedMs = performance.now();
    await inParallel(eligible, concurrency, async (customer) => {
      const sentMs = performance.now();
      const ok = await batchFor(customer, customer.accounts, firstTouchLatencies.length).catch(() => false);
      if (ok) firstTouchLatencies.push(performance.now() - sentMs);
      else firstTouchErrors += 1;
      firstTouchLegs += customer.accounts.length;
    });
    const firstTouchS = (performance.now() - firstTouchStartedMs) / 1000;
    const firstTouchCpu = stopFirstTouchCpu();
    profileSignal();
    const firstTouchProjectCpuPerLeg =
      projectProcesses.reduce((sum, name) => sum + (firstTouchCpu[name] ?? 0), 0) / Math.max(1, firstTouchLegs);
    const firstTouchRun = runFromLatencies(
      {
        label: `first touch of ${accountCount.toLocaleString('en')} accounts (one ${accountsPerCustomer}-leg batch per customer)`,
        concurrency,
        unit: 'batches',
        series: 'first touch',
      },
      firstTouchLatencies,
      firstTouchS,
      firstTouchErrors,
    );
    runs.push(firstTouchRun);
    log(
      `  p50 ${firstTouchRun.p50_ms} ms, ${firstTouchRun.throughput_per_s} batches/s, errors ${firstTouchErrors}; project CPU ${firstTouchProjectCpuPerLeg.toFixed(3)} ms per leg (baseline ${(baseline.projectCpu / legsPerBatch).toFixed(3)})`,
    );

    // Phase 4: the steady state: random customers, 4 random accounts each.
    const pickAtScale = () => {
      const customer = eligible[Math.floor(Math.random() * eligible.length)]!;
      const accounts = [...customer.accounts].sort(() => Math.random() - 0.5).slice(0, legsPerBatch);
      return { customer, accounts };
    };
    log(
      `at scale: ${legsPerBatch}-leg batches for random customers among ${eligible.length}, concurrency ${concurrency}, ${phaseSeconds} s`,
    );
    profileSignal();
    const scaled = await closedLoop(phaseSeconds, pickAtScale);
    profileSignal();
    const scaledRun = runFromLatencies(
      { label: `${accountCount.toLocaleString('en')} accounts`, concurrency, unit: 'batches', series: 'accounts' },
      scaled.latencies,
      scaled.durationS,
      scaled.errors,
    );
    if (baselineRun.p50_ms !== null)
      scaledRun.floor = {
        metric: 'p50_ms',
        value: roundTo(baselineRun.p50_ms * 1.1)!,
        comparison: 'at_most',
        description: `p50 within 10 % of the ${legsPerBatch}-account baseline measured in the same run`,
      };
    runs.push(scaledRun);
    const memoryAfterScaleMiB = connectorMemory();
    const statsAfterScale = await controlStats();
    const streamsAfterScale = statsAfterScale.terminals_connected;
    const p50Ratio = baselineRun.p50_ms && scaledRun.p50_ms ? scaledRun.p50_ms / baselineRun.p50_ms : Number.NaN;
    const cpuRatio = scaled.projectCpu / Math.max(1e-9, baseline.projectCpu);
    log(
      `  p50 ${scaledRun.p50_ms} ms, p99 ${scaledRun.p99_ms} ms, ${scaledRun.throughput_per_s} batches/s, errors ${scaled.errors}; CPU ms per batch: ${describeCpu(scaled.cpuPerBatch)}; project ${scaled.projectCpu.toFixed(2)}; ${scaled.storeCommands}`,
    );
    // Phase 5: the baseline's batches again, on the store and connectors as the scale phase left them (10,000
    // sessions and streams open, every batch so far stored): what of the growth is not the spread over accounts.
    log(`${legsPerBatch} accounts again, after the scale phase, ${phaseSeconds} s`);
    profileSignal();
    const closing = await closedLoop(phaseSeconds, () => ({
      customer: baselineCustomer,
      accounts: baselineCustomer.accounts.slice(0, legsPerBatch),
    }));
    profileSignal();
    const closingRun = runFromLatencies(
      { label: `${legsPerBatch} accounts, after the scale phase`, concurrency, unit: 'batches', series: 'accounts again' },
      closing.latencies,
      closing.durationS,
      closing.errors,
    );
    runs.push(closingRun);
    log(
      `  p50 ${closingRun.p50_ms} ms, p99 ${closingRun.p99_ms} ms, ${closingRun.throughput_per_s} batches/s, errors ${closing.errors}; CPU ms per batch: ${describeCpu(closing.cpuPerBatch)}; project ${closing.projectCpu.toFixed(2)}; ${closing.storeCommands}`,
    );
    const closingP50Ratio = baselineRun.p50_ms && closingRun.p50_ms ? closingRun.p50_ms / baselineRun.p50_ms : Number.NaN;
    // From the start (before any load) to after registration (a terminal started and attached per account, little else): the
    // baseline's reading holds heap that its load grew and the next collection returns, so it is no base.
    const perAccountKiB = ((memoryAfterRegistrationMiB - memoryAtStartMiB) * 1024) / Math.max(1, accountCount);
    const summary =
      `At ${accountCount.toLocaleString('en')} accounts against ${legsPerBatch}: p50 ×${p50Ratio.toFixed(2)}, project CPU per batch ×${cpuRatio.toFixed(2)} ` +
      `(${baseline.projectCpu.toFixed(2)} → ${scaled.projectCpu.toFixed(2)} ms: ${describeCpu(scaled.cpuPerBatch)}). ` +
      `Per batch, the 4-account phase's ${baseline.storeCommands}; the scale phase's ${scaled.storeCommands}. ` +
      `Connectors' resident memory ${memoryAtStartMiB.toFixed(0)} MiB at start, ${memoryAtBaselineMiB.toFixed(0)} with ${legsPerBatch} accounts, ` +
      `${memoryAfterRegistrationMiB.toFixed(0)} after registering ${accountCount.toLocaleString('en')} (${perAccountKiB.toFixed(1)} KiB per account from the start), ` +
      `${memoryAfterScaleMiB.toFixed(0)} after the scale phase. Terminals connected to the connectors (one bridge connection per account, ` +
      `docs/terminal-bridge.md): ${streamsAtStart} at start, ${streamsAtBaseline} with ${legsPerBatch} accounts, ` +
      `${streamsAfterRegistration} after registration, ${streamsAfterScale} after the scale phase; ` +
      `trade-server sessions open after the scale phase ${statsAfterScale.sessions_open}. ` +
      `The ${legsPerBatch}-account batches again after the scale phase (same store, every terminal still connected): p50 ×${closingP50Ratio.toFixed(2)}, ` +
      `project CPU ×${(closing.projectCpu / Math.max(1e-9, baseline.projectCpu)).toFixed(2)} of the first baseline (${closing.projectCpu.toFixed(2)} ms: ${describeCpu(closing.cpuPerBatch)}). ` +
      `First touch (a customer returning after the caches forgot it): project CPU ${firstTouchProjectCpuPerLeg.toFixed(3)} ms per leg against ${(baseline.projectCpu / legsPerBatch).toFixed(3)} in the baseline. ` +
      `Registration: ${(remaining.length / registrationS).toFixed(0)} accounts/s at concurrency ${concurrency}. Load average ${os.loadavg()[0]!.toFixed(1)} at the end on ${os.cpus().length} cores.`;
    log(summary);
    notes.push(summary);
  } finally {
    await pool.destroy().catch(() => undefined);
    await mongo.close().catch(() => undefined);
    await stack.stop().catch(() => undefined);
    await infrastructure.stop();
    fs.rmSync(dataDirectory, { recursive: true, force: true });
  }
  const result: BenchResult = {
    name: 'scale',
    title: 'Execution at 10,000 accounts',
    description: `${legsPerBatch}-leg order batches at concurrency ${concurrency} for one customer with ${legsPerBatch} accounts, then for random customers among ${customerCount.toLocaleString('en')} holding ${accountCount.toLocaleString('en')} accounts on ${servers.length} broker servers (real gateway, execution, connectors, broker-sim at zero latency).`,
    date: new Date().toISOString(),
    machine: currentMachine(),
    runs,
    notes: notes.join('\n'),
  };
  for (const file of writeBenchResult(result)) log(`written: ${path.relative(process.cwd(), file)}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bench:scale] failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
