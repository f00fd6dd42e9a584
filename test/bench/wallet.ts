/**
 * `npm run bench:wallet`: the wallet's hot paths, end to end, on real processes (gateway, payments, wallet,
 * billing, crypto-sandbox) and the real store (FerretDB started here unless MONGODB_URL is set).
 *
 * 1. Signed postbacks acknowledged and credited: top-ups are created over REST, then the benchmark acts as the
 *    provider and POSTs one signed `confirmed` postback per top-up to payments' hook listener (where the ingress routes
 *    /v1/hooks/ in production), `/v1/hooks/payments/sandbox`. The
 *    acknowledgement (`recorded`) is sent once the postback is in the durable inbox; the credit follows. Two
 *    latencies per postback: the acknowledgement's, and the credit's, from the acknowledgement to the wallet's
 *    `events.wallet.credited` announcement of it (published once the ledger insert is committed and the wallet's
 *    read head has it, so at or after the moment GET /v1/wallet can show it). First at fixed concurrencies
 *    (closed loop), then at fixed offered rates (open loop, each of BENCH_WALLET_CREDIT_RATE per second for
 *    BENCH_WALLET_CREDIT_RATE_SECONDS): postbacks leave on a schedule whatever the answers do, as a provider's
 *    deliveries arrive (over openLoopWarmConnections kept-alive connections opened first, as an ingress holds
 *    them), and each acknowledgement latency is counted from the moment its postback was due, so a
 *    backlog shows in the percentiles instead of slowing the sender. This run judges the target: ≥ 990/s
 *    acknowledged of 1000/s offered with the acknowledgement's p99 ≤ 20 ms, and the credit's p99 ≤ 50 ms.
 *    Every acknowledged postback must end credited exactly once (each one's ledger entry is looked up by its
 *    entry id) and the ledger audit must pass.
 *    Before any measured phase, BENCH_WALLET_WARMUP postbacks (default 10,000; closed loop, concurrency 16, credited
 *    and checked like the others, not reported): V8 compiles a service's hot path with its optimising tier only after
 *    thousands of runs of it, and in payments, the wallet and billing that happened about 10,000 postbacks in, on the
 *    machine's two cores at once, as one slow second inside the open loop. A service that has been up for minutes has
 *    done it long ago; a benchmark measures the service as it runs, not its first minute.
 * 2. Duplicate deliveries: the same postbacks again (all `duplicate`): the replay path's cost.
 * 3. GET /v1/wallet requests per second with read-only keys, closed loop, at two concurrencies.
 *
 * Writes test/bench/results/wallet.json (format: docs/performance.md, "Result and baseline files"; with `--baseline` or BENCH_WRITE_BASELINE=1 also its baseline in test/bench/baselines/) and prints a summary.
 * Knobs: BENCH_WALLET_TOPUPS (closed-loop credits, default 2000), BENCH_WALLET_WARMUP (default 10000, 0 for
 * none), BENCH_WALLET_CREDIT_RATE (the open-loop runs' rates per second, default "1000", empty for none),
 * BENCH_WALLET_CREDIT_RATE_SECONDS (each, default 20), BENCH_WALLET_SECONDS (GET run length, default 10),
 * BENCH_WALLET_PROFILE_PHASE (see below),
 * BENCH_WALLET_SPLIT_CREDITING=1 (payments' crediting in a second payments process, PAYMENTS_CREDITING_ENABLED
 * off in the first, which keeps the API and the hook listener).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalInfrastructure } from '../../services/devstack/src/local';
import { startServiceProcess, startStack, type Stack } from '../../services/devstack/src/services';
import { freePort } from '../../services/devstack/src/ports';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { createUnaryClient } from '@mtx/shared/grpc';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createLogger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';
import { auditLedger } from '../../services/wallet/src/audit';
import { collectLoadGeneratorGarbage, createHttpPool, type HttpMethod } from './load-tools';
import { describeCpuPerUnit, measureProcessCpu } from './process-cpu';
import { describeStoreCommandsPerUnit, readStoreCommands } from './store-commands';
import { writeBenchResult } from './baseline';
import { currentMachine, p99BySecond, percentile, roundTo, runFromLatencies, type BenchResult, type BenchRun } from './report';

const closedLoopTopupCount = Number(process.env.BENCH_WALLET_TOPUPS ?? 2000);
const warmUpTopupCount = Number(process.env.BENCH_WALLET_WARMUP ?? 10_000);
const warmUpConcurrency = 16;
if (!Number.isSafeInteger(warmUpTopupCount) || warmUpTopupCount < 0) throw new Error('BENCH_WALLET_WARMUP must be a whole number');
// Offered rates of the open-loop runs, lowest first: the target's rate and one below it, so the report shows
// how far below the target the p99 holds.
const creditRatesPerS = (process.env.BENCH_WALLET_CREDIT_RATE ?? '1000')
  .split(',')
  .filter((value) => value.trim() !== '')
  .map(Number);
const creditRateSeconds = Number(process.env.BENCH_WALLET_CREDIT_RATE_SECONDS ?? 20);
if (!creditRatesPerS.every((rate) => Number.isFinite(rate) && rate > 0) || !(creditRateSeconds > 0)) {
  throw new Error(
    'BENCH_WALLET_CREDIT_RATE must be a comma-separated list of rates > 0 (empty for none) and BENCH_WALLET_CREDIT_RATE_SECONDS > 0',
  );
}
const openLoopTopupCounts = creditRatesPerS.map((rate) => Math.round(rate * creditRateSeconds));
const openLoopTopupCount = openLoopTopupCounts.reduce((sum, count) => sum + count, 0);
const topupCount = warmUpTopupCount + closedLoopTopupCount + openLoopTopupCount;
// Postbacks of the open loop still waiting for their answer; one more due beyond this is counted as failed (the
// run then misses its floor) instead of growing the client's queue without bound.
const openLoopInFlightMax = 1024;
// Connections the open loop holds open before its clock starts. A provider's postbacks reach payments through the
// ingress, which keeps a pool of upstream connections (ingress-nginx keeps up to 320 per worker); an empty pool
// opening hundreds of connections in its first second would measure a cold start no deployment has, on a saturated
// listener that accepts new connections last. The pool still grows (to openLoopInFlightMax) if answers slow down.
const openLoopWarmConnections = 256;
const splitCrediting = process.env.BENCH_WALLET_SPLIT_CREDITING === '1';
const readSeconds = Number(process.env.BENCH_WALLET_SECONDS ?? 10);
const postbackSecret = `bench-${crypto.randomBytes(16).toString('hex')}`;
const prefix = `benchw_${crypto.randomBytes(3).toString('hex')}_`;
const resultsFile = path.join(__dirname, 'results', 'wallet.json');
/** The target, in one open-loop run of 1000/s: ≥ 990/s acknowledged with the acknowledgement's p99 ≤ 20 ms … */
const acknowledgementFloor = {
  metric: 'throughput_per_s',
  value: 990,
  comparison: 'at_least',
  description: '≥ 990 postbacks/s acknowledged (1000/s offered) with the acknowledgement p99 ≤ 20 ms, both in the same run',
  and: { metric: 'p99_ms', value: 20, comparison: 'at_most' },
} as const;
/** … and each credit in the wallet within 50 ms (p99) of its acknowledgement. */
const creditFloor = {
  metric: 'p99_ms',
  value: 50,
  comparison: 'at_most',
  description: 'p99 ≤ 50 ms from the acknowledgement to the credit in the wallet',
} as const;
// How long the credits of a phase may take to land after its last acknowledgement before the run fails.
const creditsSettleMs = 30_000;

/**
 * `credits-<concurrency>`, `credits-rate-<rate>` or `reads-<concurrency>`: with NODE_OPTIONS preloading cpu-profile-preload.cjs,
 * BENCH_PROFILE_DIR and BENCH_PROFILE_ON_SIGNAL=1, every service writes a CPU profile of that phase alone.
 */
const profilePhase = process.env.BENCH_WALLET_PROFILE_PHASE ?? '';
function signalServices(processes: Map<string, number | undefined>): void {
  for (const [name, pid] of processes)
    if (pid && !['ferretdb', 'postgresql', 'nats-server'].includes(name) && pid !== process.pid) process.kill(pid, 'SIGUSR2');
}
const log = (line: string) => process.stderr.write(`[bench:wallet] ${line}\n`);

interface Answer {
  status: number;
  body: string;
  latencyMs: number;
}

/** The provider's and the customers' HTTP client, timing each answer. */
function createHttpClient(baseUrl: string, connections: number) {
  const pool = createHttpPool(baseUrl, connections);
  return {
    async request(method: HttpMethod, pathname: string, headers: Record<string, string>, body?: string): Promise<Answer> {
      const started = process.hrtime.bigint();
      const response = await pool.request({ method, path: pathname, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.body.text();
      return { status: response.statusCode, body: text, latencyMs: Number(process.hrtime.bigint() - started) / 1e6 };
    },
    close: () => void pool.destroy().catch(() => undefined),
  };
}

const round = roundTo;

function summarise(
  label: string,
  concurrency: number,
  latencies: number[],
  durationS: number,
  errors: number,
  unit: string,
  extra: Partial<BenchRun> = {},
): BenchRun {
  return { ...runFromLatencies({ label, concurrency, unit }, latencies, durationS, errors), ...extra };
}

/** What a run of postbacks gave; the open loop alone fills the per-second figures. */
interface LoopOutcome {
  latencies: number[];
  errors: number;
  durationS: number;
  notSent: number[];
  /** [when each answered postback was due, from the run's start; its latency], ms. */
  timeline: Array<[number, number]>;
  /** How late the loop itself sent, at worst, in each second (ms). */
  senderLateMsBySecond: number[];
}

/**
 * Starts `work(i)` for i in [0, total) at `ratePerS` (open loop: on schedule, whatever the answers do) and
 * resolves each latency from the moment its start was due, so a sender that fell behind, or a backlog in the
 * services, counts against the figures. More than `inFlightMax` unanswered: that start is an error instead.
 */
async function openLoop(
  total: number,
  ratePerS: number,
  inFlightMax: number,
  work: (index: number) => Promise<boolean>,
): Promise<LoopOutcome> {
  const latencies: number[] = [];
  const timeline: Array<[number, number]> = [];
  // Latency the load generator added, not the services.
  const senderLateMsBySecond: number[] = [];
  let errors = 0;
  let inFlight = 0;
  const notSent: number[] = [];
  const startedMs = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let index = 0; index < total; index++) {
    const dueMs = startedMs + (index * 1000) / ratePerS;
    const aheadMs = dueMs - performance.now();
    // Timers fire on the millisecond at best: starts due within the next one go out now, in order.
    if (aheadMs >= 1) await new Promise((resolve) => setTimeout(resolve, aheadMs));
    const second = Math.floor((dueMs - startedMs) / 1000);
    senderLateMsBySecond[second] = Math.max(senderLateMsBySecond[second] ?? 0, Math.round(performance.now() - dueMs));
    if (inFlight >= inFlightMax) {
      errors += 1;
      notSent.push(index);
      continue;
    }
    inFlight += 1;
    pending.push(
      work(index)
        .catch(() => false)
        .then((ok) => {
          inFlight -= 1;
          if (ok) {
            const latencyMs = performance.now() - dueMs;
            latencies.push(latencyMs);
            timeline.push([dueMs - startedMs, latencyMs]);
          } else errors += 1;
        }),
    );
  }
  await Promise.all(pending);
  return { latencies, errors, durationS: (performance.now() - startedMs) / 1000, notSent, timeline, senderLateMsBySecond };
}

/** Runs `work(i)` for i in [0, total) with at most `concurrency` in flight, timing each from its start. */
async function closedLoop(total: number, concurrency: number, work: (index: number) => Promise<boolean>): Promise<LoopOutcome> {
  const latencies: number[] = [];
  let errors = 0;
  const startedMs = performance.now();
  await pool(total, concurrency, async (index) => {
    const operationStartedMs = performance.now();
    if (await work(index).catch(() => false)) latencies.push(performance.now() - operationStartedMs);
    else errors += 1;
  });
  return { latencies, errors, durationS: (performance.now() - startedMs) / 1000, notSent: [], timeline: [], senderLateMsBySecond: [] };
}

/** Runs `work(i)` for i in [0, total) with at most `concurrency` in flight. */
async function pool(total: number, concurrency: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await work(next++);
    }),
  );
}

async function main(): Promise<void> {
  const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-bench-wallet-'));
  const infrastructure = await startLocalInfrastructure({ dataDirectory, log, storeMetrics: true });
  let stack: Stack | undefined;
  const mongo = await connectMongo(infrastructure.mongodbUrl);
  try {
    log('starting wallet, payments, billing, crypto-sandbox and gateway');
    stack = await startStack({
      mongodbUrl: infrastructure.mongodbUrl,
      natsUrl: infrastructure.natsUrl,
      dataDirectory,
      services: ['wallet', 'payments', 'billing', 'crypto-sandbox', 'gateway'],
      ...(splitCrediting ? { serviceEnv: { payments: { PAYMENTS_CREDITING_ENABLED: 'false' } } } : {}),
      env: {
        MONGODB_DATABASE_PREFIX: prefix,
        LOG_LEVEL: 'warn',
        POSTBACK_SECRET: postbackSecret,
        RATE_LIMIT_OTHER_PER_MINUTE: '100000000',
        RATE_LIMIT_EXECUTION_PER_MINUTE: '100000000',
        // The sandbox's own postbacks are not part of this measurement: the benchmark signs its own.
        POSTBACK_ATTEMPTS: '1',
      },
      onLine: (service, line, stream) => {
        if (stream === 'stderr' || /"level":(50|60)/.test(line)) process.stderr.write(`[${service}] ${line}\n`);
      },
    });
    if (splitCrediting) {
      const crediting = await startServiceProcess({
        name: 'payments-crediting',
        folder: 'payments',
        env: { ...stack.env, HOOKS_PORT: String(await freePort()), PAYMENTS_CREDITING_ENABLED: 'true' },
      });
      stack.services.set('payments-crediting', crediting);
    }
    const gatewayUrl = stack.gatewayUrl;
    // Postbacks go where the ingress routes a provider's: payments' own hook listener.
    const hooksUrl = stack.env.PAYMENTS_HOOKS_URL!;
    // Every process on the measured path, for the CPU each phase costs per unit of work.
    const processes = new Map<string, number | undefined>([...stack.services.values()].map((service) => [service.name, service.pid]));
    processes.set('ferretdb', infrastructure.store?.pid);
    if (infrastructure.store?.backend) processes.set('postgresql', infrastructure.store.backend.pid);
    processes.set('nats-server', infrastructure.nats?.pid);
    processes.set('benchmark client', process.pid);
    const cpuNotes: string[] = [];
    const gatewayStore = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));

    // Customers: postbacks spread over many wallets (as in production), each customer with a few top-ups.
    // As many customers as the closed loop's top-ups call for (ten each); the open loop's top-ups go to the same
    // customers, so the GET runs below read the same number of wallets whatever the open loop's size (a customer's
    // read rate decides how many rate-limit slots the gateway reserves at once).
    const customerCount = Math.max(1, Math.ceil(closedLoopTopupCount / 10));
    log(`creating ${customerCount} customers and ${topupCount} top-ups over REST`);
    const customers: Array<{ id: string; full: string; read: string }> = [];
    for (let index = 0; index < customerCount; index++) {
      const { customer_id } = await createCustomer(gatewayStore, `Bench ${index}`);
      customers.push({
        id: customer_id,
        full: (await issueKey(gatewayStore, customer_id, 'full')).key,
        read: (await issueKey(gatewayStore, customer_id, 'read')).key,
      });
    }
    const setupClient = createHttpClient(gatewayUrl, 16);
    const topups: Array<{
      id: number;
      customer: number;
      amount: number;
      deposit_address: string;
      deposit_amount: string;
      invoice_id?: string;
    }> = [];
    const setupStarted = Date.now();
    await pool(topupCount, 16, async (index) => {
      const customer = index % customerCount;
      const amount = 1000 + (index % 40) * 10;
      // Setup is not measured: a busy machine may time a creation out, so it is retried.
      for (let attempt = 1; ; attempt++) {
        const answer = await setupClient.request(
          'POST',
          '/v1/wallet/topup',
          { authorization: `Bearer ${customers[customer]!.full}`, 'content-type': 'application/json' },
          JSON.stringify({ amount_eur_cents: amount, asset_code: 'USDT', blockchain_code: 'TRON' }),
        );
        if (answer.status === 201) {
          const topup = JSON.parse(answer.body) as { id: number; deposit_address: string; deposit_amount: string };
          topups.push({ id: topup.id, customer, amount, deposit_address: topup.deposit_address, deposit_amount: topup.deposit_amount });
          return;
        }
        if (answer.status !== 503 || attempt === 5) throw new Error(`top-up creation answered ${answer.status}: ${answer.body}`);
      }
    });
    log(`created ${topups.length} top-ups in ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`);
    setupClient.close();

    // The provider's invoice id of each top-up, as the real postback would carry it.
    const paymentsDatabase = mongo.db(databaseName(prefix, 'payments'));
    const invoiceOf = new Map<number, string>();
    for await (const topup of paymentsDatabase
      .collection<{ _id: string; id: number; invoice_id: string }>('topups')
      .find({}, { projection: { id: 1, invoice_id: 1 } }))
      invoiceOf.set(topup.id, topup.invoice_id);
    if (topups.some((topup) => !invoiceOf.has(topup.id))) throw new Error('a created top-up has no stored invoice');
    const postbackFor = (topup: (typeof topups)[number], transactionId: string) =>
      JSON.stringify({
        type: 'transaction',
        delivery_id: `dlv_${crypto.randomBytes(8).toString('hex')}`,
        timestamp: new Date().toISOString(),
        invoice_id: invoiceOf.get(topup.id),
        order_id: String(topup.id),
        address: topup.deposit_address,
        asset_code: 'USDT',
        blockchain_code: 'TRON',
        transaction: {
          id: transactionId,
          amount: topup.deposit_amount,
          status: 'confirmed',
          confirmations: 12,
          received_at: new Date().toISOString(),
        },
      });
    const sign = (body: string) => `sha256=${crypto.createHmac('sha256', postbackSecret).update(body).digest('hex')}`;
    const transactionIds = topups.map(() => crypto.randomBytes(32).toString('hex'));

    // When each credit was acknowledged and when the wallet announced it (entry id → performance.now()).
    const acknowledgedAtMs = new Map<string, number>();
    const creditedAtMs = new Map<string, number>();
    const nats = await connectNats(infrastructure.natsUrl, 'bench-wallet', createLogger('bench', { level: 'silent' }));
    const decoder = new TextDecoder();
    nats.subscribe('events.wallet.credited', {
      callback: (error, message) => {
        if (error) return;
        const { entry_id: entryId } = JSON.parse(decoder.decode(message.data)) as { entry_id?: string };
        if (entryId && !creditedAtMs.has(entryId)) creditedAtMs.set(entryId, performance.now());
      },
    });
    await nats.flush();

    const runs: BenchRun[] = [];
    const concurrencyLevels = [1, 8, 16, 64];
    // Split the closed loop's top-ups across the concurrency levels: each postback credits a fresh transaction.
    // The open loop's come last.
    const first = Math.min(200, Math.floor(closedLoopTopupCount * 0.1));
    const rest = Math.floor((closedLoopTopupCount - first) / 3);
    const shares = [first, rest, rest, closedLoopTopupCount - first - 2 * rest];
    let offset = warmUpTopupCount;
    // Top-ups whose postback was never sent (see creditPhase): no money is expected for them.
    const unpaid = new Set<number>();
    /**
     * One measured phase of first deliveries, each a fresh transaction: in a closed loop at `concurrency`, or on
     * the open-loop schedule of `ratePerS`. Every answer must say `recorded`; the phase ends when every credit it
     * acknowledged has been announced by the wallet (or the settle time has passed), so its CPU figures include
     * the crediting.
     */
    const creditPhase = async (
      slice: typeof topups,
      ids: string[],
      load: { concurrency: number; warmUp?: true } | { ratePerS: number },
    ): Promise<void> => {
      const open = 'ratePerS' in load;
      const warmUp = 'warmUp' in load;
      const client = createHttpClient(hooksUrl, open ? openLoopInFlightMax : load.concurrency);
      if (open) await Promise.all(Array.from({ length: openLoopWarmConnections }, () => client.request('GET', '/healthz', {})));
      let notRecorded = 0;
      let failures = 0;
      const acknowledged: string[] = [];
      // Signed before the clock starts, as a provider's deliveries are: the load generator shares the machine, and
      // its signing is not the service's cost (the timestamps stay well inside the replay window).
      const signed = slice.map((topup, index) => {
        const body = postbackFor(topup, ids[index]!);
        return { body, signature: sign(body) };
      });
      const deliver = async (index: number): Promise<boolean> => {
        const { body, signature } = signed[index]!;
        const answer = await client
          .request('POST', '/v1/hooks/payments/sandbox', { 'content-type': 'application/json', 'x-signature': signature }, body)
          .catch(() => null);
        if (answer?.status !== 200) {
          if (answer && ++failures <= 3) log(`postback answered ${answer.status}: ${answer.body}`);
          return false;
        }
        const entryId = `topup:sandbox:${ids[index]!}`;
        acknowledgedAtMs.set(entryId, performance.now());
        acknowledged.push(entryId);
        if ((JSON.parse(answer.body) as { outcome: string }).outcome !== 'recorded') notRecorded += 1;
        return true;
      };
      await collectLoadGeneratorGarbage();
      const profiled = !warmUp && profilePhase === (open ? `credits-rate-${load.ratePerS}` : `credits-${load.concurrency}`);
      if (profiled) signalServices(processes);
      const stopCpu = measureProcessCpu(processes);
      const commandsBefore = await readStoreCommands(infrastructure.store?.metricsUrl);
      const phaseStartedMs = performance.now();
      const { latencies, errors, durationS, notSent, timeline, senderLateMsBySecond } = open
        ? await openLoop(slice.length, load.ratePerS, openLoopInFlightMax, deliver)
        : await closedLoop(slice.length, load.concurrency, deliver);
      const settleStartedMs = performance.now();
      while (acknowledged.some((entryId) => !creditedAtMs.has(entryId)) && performance.now() - settleStartedMs < creditsSettleMs)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const credited = acknowledged.filter((entryId) => creditedAtMs.has(entryId));
      const creditLatencies = credited.map((entryId) => Math.max(0, creditedAtMs.get(entryId)! - acknowledgedAtMs.get(entryId)!));
      const creditTimeline = credited.map((entryId, index): [number, number] => [
        acknowledgedAtMs.get(entryId)! - phaseStartedMs,
        creditLatencies[index]!,
      ]);
      const unannounced = acknowledged.length - creditLatencies.length;
      // A postback the open loop could not send (too many unanswered) is the run's failure, not the service's:
      // it counts as an error of the run (which then misses its floor) and its top-up is left out of the balances.
      for (const index of notSent) unpaid.add(slice[index]!.id);
      if (notSent.length > 0) log(`${notSent.length} postbacks not sent: more than ${openLoopInFlightMax} were unanswered`);
      const cpu = describeCpuPerUnit(stopCpu(), latencies.length, durationS);
      const commands = describeStoreCommandsPerUnit(
        commandsBefore,
        await readStoreCommands(infrastructure.store?.metricsUrl),
        latencies.length,
      );
      if (profiled) signalServices(processes);
      client.close();
      const throwIfFailed = () => {
        if (notRecorded > 0) throw new Error(`${notRecorded} first deliveries were not recorded`);
        if (errors - notSent.length > slice.length / 100) throw new Error(`${errors - notSent.length} of ${slice.length} postbacks failed`);
      };
      if (warmUp) {
        log(`warm-up: ${latencies.length} postbacks acknowledged and credited in ${durationS.toFixed(1)} s (not reported)`);
        return throwIfFailed();
      }
      // An open loop has no set concurrency: what it had on average is the time spent in flight over the run's (Little's law).
      const concurrency = open
        ? Math.max(1, Math.round(latencies.reduce((sum, value) => sum + value, 0) / 1000 / durationS))
        : load.concurrency;
      const shape = open ? `fixed rate ${load.ratePerS}/s, open loop` : `concurrency ${concurrency}`;
      const run = summarise(`signed postback → acknowledged (${shape})`, concurrency, latencies, durationS, errors, 'postbacks', {
        series: open ? 'postbacks acknowledged, fixed rate' : 'postbacks acknowledged',
        ...(open ? { offered_per_s: load.ratePerS, floor: acknowledgementFloor, p99_ms_by_second: p99BySecond(timeline) } : {}),
      });
      const creditRun = summarise(
        `acknowledgement → credit in the wallet (${shape})`,
        concurrency,
        creditLatencies,
        durationS,
        unannounced,
        'credits',
        {
          series: open ? 'credits after acknowledgement, fixed rate' : 'credits after acknowledgement',
          ...(open ? { floor: creditFloor, p99_ms_by_second: p99BySecond(creditTimeline) } : {}),
        },
      );
      cpuNotes.push(
        `postbacks ${open ? `at a fixed ${load.ratePerS}/s` : `at concurrency ${concurrency}`}, acknowledged and credited: ${cpu}${commands ? `; ${commands}` : ''}.`,
      );
      runs.push(run, creditRun);
      log(
        `${run.label}: ${run.throughput_per_s}/s, p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, errors ${errors}, not recorded ${notRecorded}`,
      );
      log(
        `${creditRun.label}: p50 ${creditRun.p50_ms} ms, p99 ${creditRun.p99_ms} ms, max ${creditRun.max_ms} ms, not announced ${unannounced}`,
      );
      if (open) {
        log(`  acknowledgement p99 by second (ms): ${run.p99_ms_by_second!.join(', ')}`);
        log(`  credit p99 by second of its acknowledgement (ms): ${creditRun.p99_ms_by_second!.join(', ')}`);
        log(`  this load generator's own lateness in sending, worst of each second (ms): ${senderLateMsBySecond.join(', ')}`);
      }
      log(`  ${cpu}`);
      if (commands) log(`  ${commands}`);
      throwIfFailed();
    };
    if (warmUpTopupCount > 0)
      await creditPhase(topups.slice(0, warmUpTopupCount), transactionIds.slice(0, warmUpTopupCount), {
        concurrency: warmUpConcurrency,
        warmUp: true,
      });
    for (const [level, concurrency] of concurrencyLevels.entries()) {
      const slice = topups.slice(offset, offset + shares[level]!);
      const ids = transactionIds.slice(offset, offset + shares[level]!);
      offset += shares[level]!;
      if (slice.length > 0) await creditPhase(slice, ids, { concurrency });
    }
    // The same postbacks at a fixed offered rate: the run that judges the target.
    for (const [index, ratePerS] of creditRatesPerS.entries()) {
      const count = openLoopTopupCounts[index]!;
      await creditPhase(topups.slice(offset, offset + count), transactionIds.slice(offset, offset + count), { ratePerS });
      offset += count;
    }

    // Replays of the postbacks just credited: every answer must be duplicate. One whose first delivery was refused
    // or never sent is a first delivery, not a replay, so it is left out.
    {
      const replayed = topups
        .map((_, index) => index)
        .filter((index) => acknowledgedAtMs.has(`topup:sandbox:${transactionIds[index]!}`))
        .slice(0, 1000);
      const replayCount = replayed.length;
      const client = createHttpClient(hooksUrl, 16);
      const latencies: number[] = [];
      let errors = 0;
      let wrong = 0;
      const started = process.hrtime.bigint();
      await pool(replayCount, 16, async (position) => {
        const index = replayed[position]!;
        const body = postbackFor(topups[index]!, transactionIds[index]!);
        const answer = await client
          .request('POST', '/v1/hooks/payments/sandbox', { 'content-type': 'application/json', 'x-signature': sign(body) }, body)
          .catch(() => null);
        if (answer?.status !== 200) {
          errors += 1;
          return;
        }
        latencies.push(answer.latencyMs);
        if ((JSON.parse(answer.body) as { outcome: string }).outcome !== 'duplicate') wrong += 1;
      });
      const durationS = Number(process.hrtime.bigint() - started) / 1e9;
      client.close();
      if (wrong > 0) throw new Error(`${wrong} replays were not recognised as duplicates`);
      const run = summarise('duplicate postback → duplicate (concurrency 16)', 16, latencies, durationS, errors, 'replays', {
        series: 'duplicates',
      });
      runs.push(run);
      log(`${run.label}: ${run.throughput_per_s}/s, p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms`);
    }

    // Exactly once: every acknowledged postback has exactly one ledger entry (none lost, none twice), each
    // customer's balance is the sum of its top-ups, and the ledger is sound.
    const ledgerCounts = new Map<string, number>();
    for await (const entry of mongo
      .db(databaseName(prefix, 'wallet'))
      .collection<{ entry_id: string }>('ledger')
      .find({ reason: 'topup' }, { projection: { entry_id: 1 } }))
      ledgerCounts.set(entry.entry_id, (ledgerCounts.get(entry.entry_id) ?? 0) + 1);
    const lost = [...acknowledgedAtMs.keys()].filter((entryId) => !ledgerCounts.has(entryId)).length;
    const creditedTwice = [...ledgerCounts.values()].filter((count) => count > 1).length;
    log(`exactly once: ${acknowledgedAtMs.size} postbacks acknowledged, ${lost} lost, ${creditedTwice} credited twice`);
    await nats.close();
    if (lost > 0 || creditedTwice > 0)
      throw new Error(`money check failed: ${lost} acknowledged credits lost, ${creditedTwice} credited twice`);
    const wallet = createUnaryClient<any>('wallet/v1/wallet.proto', 'mtx.wallet.v1.WalletService', stack.env.WALLET_GRPC_URL!, 10_000);
    const expected = new Map<number, number>();
    for (const topup of topups)
      expected.set(topup.customer, (expected.get(topup.customer) ?? 0) + (unpaid.has(topup.id) ? 0 : topup.amount));
    let mismatches = 0;
    for (const [customer, amount] of expected) {
      const current = await wallet.call<{ balance_eur_cents: number; held_eur_cents: number }>('GetWallet', {
        customer_id: customers[customer]!.id,
      });
      if (current.balance_eur_cents + current.held_eur_cents !== amount) mismatches += 1;
    }
    wallet.close();
    const audit = await auditLedger(mongo.db(databaseName(prefix, 'wallet')));
    log(
      `balances: ${mismatches} mismatches over ${expected.size} wallets; audit ${audit.ok ? 'OK' : 'FAILED'} (${audit.entries_checked} entries)`,
    );
    if (mismatches > 0 || !audit.ok)
      throw new Error(`money check failed: ${mismatches} balance mismatches, audit breaches: ${audit.breaches.slice(0, 5).join('; ')}`);

    // Where a GET /v1/wallet spends its time: each backend it calls, alone and in sequence.
    const backendLatency: Record<string, number | null> = {};
    {
      const clients = {
        'wallet GetWallet': ['wallet/v1/wallet.proto', 'mtx.wallet.v1.WalletService', stack.env.WALLET_GRPC_URL!, 'GetWallet'],
        'payments ListPendingTopups': [
          'payments/v1/payments.proto',
          'mtx.payments.v1.PaymentsService',
          stack.env.PAYMENTS_GRPC_URL!,
          'ListPendingTopups',
        ],
        'billing GetUpcoming': ['billing/v1/billing.proto', 'mtx.billing.v1.BillingService', stack.env.BILLING_GRPC_URL!, 'GetUpcoming'],
      } as const;
      for (const [label, [file, service, address, method]] of Object.entries(clients)) {
        const client = createUnaryClient<any>(file, service, address, 10_000);
        const latencies: number[] = [];
        for (let index = 0; index < 200; index++) {
          const started = process.hrtime.bigint();
          await client.call(method, { customer_id: customers[index % customers.length]!.id });
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        client.close();
        backendLatency[label] = round(
          percentile(
            [...latencies].sort((a, b) => a - b),
            0.5,
          ),
        );
      }
      log(`backend p50 (sequential): ${JSON.stringify(backendLatency)}`);
    }

    // GET /v1/wallet, closed loop.
    for (const concurrency of [16, 64]) {
      await collectLoadGeneratorGarbage();
      const profiled = profilePhase === `reads-${concurrency}`;
      if (profiled) signalServices(processes);
      const client = createHttpClient(gatewayUrl, concurrency);
      const latencies: number[] = [];
      let errors = 0;
      const deadline = Date.now() + readSeconds * 1000;
      const started = process.hrtime.bigint();
      const stopCpu = measureProcessCpu(processes);
      await Promise.all(
        Array.from({ length: concurrency }, async (_, worker) => {
          let turn = worker;
          while (Date.now() < deadline) {
            const customer = customers[turn++ % customers.length]!;
            const answer = await client.request('GET', '/v1/wallet', { authorization: `Bearer ${customer.read}` }).catch(() => null);
            if (answer?.status !== 200) {
              errors += 1;
              if (answer && errors <= 3) log(`GET /v1/wallet answered ${answer.status}: ${answer.body}`);
              continue;
            }
            latencies.push(answer.latencyMs);
          }
        }),
      );
      const durationS = Number(process.hrtime.bigint() - started) / 1e9;
      const cpu = describeCpuPerUnit(stopCpu(), latencies.length, durationS);
      if (profiled) signalServices(processes);
      cpuNotes.push(`GET /v1/wallet at concurrency ${concurrency}: ${cpu}.`);
      client.close();
      const run = summarise(`GET /v1/wallet (concurrency ${concurrency})`, concurrency, latencies, durationS, errors, 'requests', {
        series: 'GET /v1/wallet',
        floor: { metric: 'throughput_per_s', value: 3000, comparison: 'at_least', description: '≥ 3000 requests/s' },
      });
      runs.push(run);
      log(`${run.label}: ${run.throughput_per_s}/s, p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, errors ${errors}`);
      log(`  ${cpu}`);
    }

    const result: BenchResult = {
      name: 'wallet',
      title: 'Wallet: postbacks acknowledged and credited, balance reads',
      description:
        `Real processes (gateway, payments, wallet, billing, crypto-sandbox) on FerretDB. ${topups.length} top-ups over ${customers.length} customers; ` +
        'each credited by one HMAC-signed postback POSTed by the benchmark acting as the provider, acknowledged once recorded in the durable inbox and credited from there; ' +
        "the credit's latency runs from the acknowledgement to the wallet's announcement of the credit. " +
        `Then duplicate deliveries, then GET /v1/wallet with read-only keys for ${readSeconds} s per concurrency. Every balance is checked and the ledger audited after the credits.`,
      date: new Date().toISOString(),
      machine: currentMachine(),
      runs,
      notes:
        `Store: ${process.env.MONGODB_URL ? 'MONGODB_URL' : 'FerretDB 1.24 (SQLite) started by the benchmark'}; the benchmark's client shares the machine with every service ` +
        `(${os.cpus().length} cores, load average ${os
          .loadavg()
          .map((value) => value.toFixed(1))
          .join(' / ')} at the end). ` +
        `Sequential p50 of the backends GET /v1/wallet calls, in ms: ${JSON.stringify(backendLatency)}. ${cpuNotes.join(' ')}`,
    };
    for (const file of writeBenchResult(result, { file: resultsFile })) log(`written: ${path.relative(process.cwd(), file)}`);
  } finally {
    await stack?.stop().catch(() => undefined);
    for (const service of ['wallet', 'payments', 'billing', 'crypto-sandbox', 'gateway'])
      await mongo
        .db(databaseName(prefix, service))
        .dropDatabase()
        .catch(() => undefined);
    await mongo.close().catch(() => undefined);
    await infrastructure.stop();
    fs.rmSync(dataDirectory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
