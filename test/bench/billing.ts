/**
 * `npm run bench:billing`: billing's two performance promises, measured on real processes (wallet, payments,
 * billing, gateway) over the real store and NATS, and written to test/bench/results/billing.json (with `--baseline`
 * or BENCH_WRITE_BASELINE=1 also its baseline in test/bench/baselines/).
 *
 * 1. GET /v1/subscription and GET /v1/wallet for one customer with 500 seats and 20 servers: p50/p90/p99 of
 *    sequential requests through the gateway after a warm-up, plus billing's own share (GetSubscription and
 *    GetUpcoming straight over gRPC) and the one-off cold load of the customer's view.
 * 2. The scheduler charging 10,000 seats due at the same instant (1,000 customers × 10 seats) through the
 *    wallet's idempotent Debit: charges per second, from the first tick until every seat is renewed. The
 *    wallet's audit must pass afterwards and its ledger must hold exactly one debit per renewed seat. The
 *    wallet's own Debit throughput at the same concurrency is measured beside it, as the ceiling.
 *
 * The store and NATS are started locally (FerretDB on SQLite) unless MONGODB_URL / NATS_URL are set.
 * BENCH_BILLING_SEATS (0 skips part 2) and BENCH_BILLING_CUSTOMERS size part 2, BENCH_BILLING_READS the
 * requests per endpoint, SCHEDULER_CONCURRENCY and SCHEDULER_BATCH_SIZE are passed to billing (billing's own defaults
 * otherwise), BENCH_BILLING_SCHEDULER_BUDGET_S bounds part 2. Each process's CPU per charge and the load
 * average go into the notes: on a shared machine they say more than the wall clock alone. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { startLocalInfrastructure } from '@mtx/devstack/local';
import { startServiceProcess, type ServiceProcess } from '@mtx/devstack/services';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { BillingConfigSchema } from '../../services/billing/src/config';
import { addMonthsClamped } from '../../services/billing/src/domain/calendar';
import { pointerKey, type ServerDocument } from '../../services/billing/src/domain/model';
import { billingCollections } from '../../services/billing/src/store/billing-store';
import { insertInChunks, seedSeats, type SeedSeat } from '../../services/billing/test/seed';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';
import { collectLoadGeneratorGarbage, createHttpPool, inParallel, restCall } from './load-tools';
import { describeCpuPerUnit, measureProcessCpu } from './process-cpu';
import { describeStoreCommandsPerUnit, readStoreCommands } from './store-commands';
import { writeBenchResult } from './baseline';
import { currentMachine, percentile, roundTo, type BenchResult, type BenchRun } from './report';

const seatCount = Number(process.env.BENCH_BILLING_SEATS ?? 10_000);
const customerCount = Number(process.env.BENCH_BILLING_CUSTOMERS ?? 1_000);
const readRequests = Number(process.env.BENCH_BILLING_READS ?? 1_000);
const schedulerConcurrency = Number(process.env.SCHEDULER_CONCURRENCY ?? BillingConfigSchema.properties.SCHEDULER_CONCURRENCY.default);
/** Wall-clock bound of the scheduler part, so a slow store ends the run with a figure instead of a timeout. */
const schedulerBudgetMs = Number(process.env.BENCH_BILLING_SCHEDULER_BUDGET_S ?? 900) * 1000;
const log = (line: string) => process.stderr.write(`[bench:billing] ${line}\n`);

const round = roundTo;

async function main(): Promise<void> {
  const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-bench-billing-'));
  const infrastructure = await startLocalInfrastructure({ dataDirectory, log, storeMetrics: true });
  const prefix = `benchbill${crypto.randomBytes(3).toString('hex')}_`;
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_URL: infrastructure.mongodbUrl,
    NATS_URL: infrastructure.natsUrl,
    MONGODB_DATABASE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
  };
  const processes: ServiceProcess[] = [];
  const clients: UnaryClient<any>[] = [];
  let mongo: MongoClient | undefined;
  const runs: BenchRun[] = [];
  const notes: string[] = [];
  try {
    const onLine = (service: string, line: string, stream: 'stdout' | 'stderr') => {
      if (stream === 'stderr' || line.includes('"level":50') || line.includes('"level":60')) log(`${service}: ${line}`);
    };
    const wallet = await startServiceProcess({ name: 'wallet', env: baseEnv, onLine });
    processes.push(wallet);
    const billing = await startServiceProcess({
      name: 'billing',
      env: {
        ...baseEnv,
        WALLET_GRPC_URL: wallet.address,
        SCHEDULER_ENABLED: 'false',
        SCHEDULER_LEASE_MS: '60000',
        SCHEDULER_CONCURRENCY: String(schedulerConcurrency),
        ...(process.env.SCHEDULER_BATCH_SIZE ? { SCHEDULER_BATCH_SIZE: process.env.SCHEDULER_BATCH_SIZE } : {}),
        WALLET_DEADLINE_MS: '30000',
        FAILURE_BACKOFF_MS: '1000',
      },
      onLine,
    });
    processes.push(billing);
    // GET /v1/wallet also lists pending top-ups, so payments runs too (its provider is never called here).
    const payments = await startServiceProcess({ name: 'payments', env: { ...baseEnv, WALLET_GRPC_URL: wallet.address }, onLine });
    processes.push(payments);
    const gateway = await startServiceProcess({
      name: 'gateway',
      env: {
        ...baseEnv,
        WALLET_GRPC_URL: wallet.address,
        BILLING_GRPC_URL: billing.address,
        PAYMENTS_GRPC_URL: payments.address,
        RATE_LIMIT_OTHER_PER_MINUTE: '10000000',
        RATE_LIMIT_EXECUTION_PER_MINUTE: '10000000',
      },
      onLine,
    });
    processes.push(gateway);
    const walletClient = createUnaryClient<any>('wallet/v1/wallet.proto', 'mtx.wallet.v1.WalletService', wallet.address, 30_000);
    const billingClient = createUnaryClient<any>('billing/v1/billing.proto', 'mtx.billing.v1.BillingService', billing.address, 600_000);
    clients.push(walletClient, billingClient);
    mongo = await connectMongo(infrastructure.mongodbUrl, { socketTimeoutMS: 600_000 });
    const collections = billingCollections(mongo.db(databaseName(prefix, 'billing')));

    const now = new Date();
    // ---- 1. reads for a customer with 500 seats and 20 servers ----
    // Measured first, on a store holding only that customer: the scheduler part below leaves 1,000 wallets
    // whose background upkeep in the wallet service would otherwise be measured too.
    const gatewayDatabase = mongo.db(databaseName(prefix, 'gateway'));
    const gatewayStore = createGatewayStore(gatewayDatabase);
    const { customer_id: customerId } = await createCustomer(gatewayStore, 'Bench customer');
    const readKey = await issueKey(gatewayStore, customerId, 'read');
    await walletClient.call('Credit', {
      customer_id: customerId,
      entry_id: `topup:bench:${customerId}`,
      amount_eur_cents: 50_000,
      reason: 'topup',
      reference: 'bench',
    });
    const readSeeds: SeedSeat[] = Array.from({ length: 500 }, (_, index) => {
      const anchor = new Date(now.getTime() - (index % 28) * 86_400_000 - 3_600_000);
      const paidUntil = addMonthsClamped(anchor, 1);
      return { customerId, accountId: `acc_read_${index}`, anchor, paidUntil, nextActionAt: paidUntil };
    });
    await seedSeats(collections, readSeeds, now);
    const servers: ServerDocument[] = Array.from({ length: 20 }, (_, index) => {
      const anchor = new Date(now.getTime() - index * 86_400_000);
      return {
        _id: `srv_bench${crypto.randomBytes(9).toString('hex')}`,
        customer_id: customerId,
        ordinal: index,
        plan: index % 2 ? 'vps-large' : 'vps-small',
        label: `Server ${index}`,
        price_eur_cents: index % 2 ? 3_500 : 1_500,
        status: 'active',
        anchor_at: anchor,
        cycle: 1,
        paid_until: addMonthsClamped(anchor, 1),
        grace_ends_at: null,
        next_action_at: addMonthsClamped(anchor, 1),
        release_reason: null,
        released_at: null,
        created_at: anchor,
        updated_at: now,
      };
    });
    await insertInChunks(collections.servers, servers);
    await collections.pointers.insertMany(
      servers.map((server) => ({
        _id: pointerKey(customerId, 'server', server.ordinal),
        customer_id: customerId,
        kind: 'server' as const,
        ordinal: server.ordinal,
        item_id: server._id,
        created_at: now,
      })),
    );
    await collections.customers.updateOne(
      { _id: customerId },
      { $set: { revision: crypto.randomBytes(9).toString('base64url'), server_count_hint: 20, updated_at: now } },
    );

    // The first read of a customer builds billing's in-memory view of it (a cold load); time it on its own.
    const coldStarted = performance.now();
    await billingClient.call('GetSubscription', { customer_id: customerId }, { deadlineMs: 120_000 });
    const coldMs = performance.now() - coldStarted;
    log(`cold load of a customer with 500 seats and 20 servers: ${coldMs.toFixed(0)} ms`);
    notes.push(
      `First read of the 500-seat customer on a fresh billing replica (cold view load): ${Math.round(coldMs)} ms; later reads are served from the replica's memory after one revision check.`,
    );
    // Billing's own share of the read, straight over gRPC (no gateway, no key check, no rate limit).
    for (const method of ['GetSubscription', 'GetUpcoming'] as const) {
      for (let index = 0; index < 100; index += 1) await billingClient.call(method, { customer_id: customerId });
      const samples: number[] = [];
      const phaseStarted = performance.now();
      for (let index = 0; index < readRequests; index += 1) {
        const requestStarted = performance.now();
        await billingClient.call(method, { customer_id: customerId });
        samples.push(performance.now() - requestStarted);
      }
      const phaseS = (performance.now() - phaseStarted) / 1000;
      const sorted = [...samples].sort((a, b) => a - b);
      log(`billing ${method} (gRPC): p50 ${percentile(sorted, 0.5)?.toFixed(2)} ms, p99 ${percentile(sorted, 0.99)?.toFixed(2)} ms`);
      runs.push({
        label: `billing ${method} over gRPC (500 seats, 20 servers)`,
        series: 'billing gRPC',
        concurrency: 1,
        requests: readRequests,
        duration_s: round(phaseS, 3)!,
        errors: 0,
        p50_ms: round(percentile(sorted, 0.5)),
        p90_ms: round(percentile(sorted, 0.9)),
        p99_ms: round(percentile(sorted, 0.99)),
        max_ms: round(sorted[sorted.length - 1] ?? null),
        throughput_per_s: round(readRequests / phaseS, 1),
      });
    }

    // The benchmarks' kept-alive client (an undici pool), its garbage collected before each timed phase, and the
    // load generator run with its array buffers counted against a 1 GB first heap limit (package.json): with the
    // global fetch and V8's defaults it ran a major collection about every 120 ms here (the 75 KB answers' buffers),
    // each timed as the gateway's latency, and they made most of the p99.
    const readPool = createHttpPool(gateway.address, 1);
    const get = (route: string) => restCall(readPool, readKey.key, 'GET', route);
    for (const [route, check] of [
      ['/v1/subscription', (body: any) => body?.seats?.total === 500 && body.seat_details.length === 500],
      ['/v1/wallet', (body: any) => typeof body?.balance_eur_cents === 'number' && Array.isArray(body.upcoming)],
    ] as const) {
      const probe = await get(route);
      if (probe.status !== 200) {
        const text = probe.body;
        notes.push(`GET ${route} answered ${probe.status} (${text.slice(0, 160)}); not measured`);
        runs.push({
          label: `GET ${route} (500 seats, 20 servers)`,
          series: 'reads',
          concurrency: 1,
          requests: 0,
          errors: 1,
          p50_ms: null,
          p90_ms: null,
          p99_ms: null,
          throughput_per_s: null,
        });
        continue;
      }
      const firstBody = JSON.parse(probe.body);
      if (!check(firstBody)) notes.push(`GET ${route} answered an unexpected body: ${JSON.stringify(firstBody).slice(0, 200)}`);
      for (let index = 0; index < 100; index += 1) await get(route);
      await collectLoadGeneratorGarbage();
      const samples: number[] = [];
      let errors = 0;
      // What each read costs the services behind it, besides its latency (the read models make most reads hits).
      const stopReadCpu = measureProcessCpu(
        new Map<string, number | undefined>([
          ...processes.map((service) => [service.name, service.pid] as [string, number | undefined]),
          ['ferretdb', infrastructure.store?.pid],
        ]),
      );
      const phaseStarted = performance.now();
      for (let index = 0; index < readRequests; index += 1) {
        const requestStarted = performance.now();
        const response = await get(route);
        samples.push(performance.now() - requestStarted);
        if (response.status !== 200) errors += 1;
      }
      const phaseS = (performance.now() - phaseStarted) / 1000;
      const readCpu = describeCpuPerUnit(stopReadCpu(), readRequests, phaseS);
      log(`GET ${route}: ${readCpu}`);
      notes.push(`GET ${route}, ${readRequests} sequential reads: ${readCpu}.`);
      const sorted = [...samples].sort((a, b) => a - b);
      const p50 = percentile(sorted, 0.5);
      const p99 = percentile(sorted, 0.99);
      log(`GET ${route}: p50 ${p50?.toFixed(2)} ms, p99 ${p99?.toFixed(2)} ms over ${readRequests} requests (${errors} errors)`);
      runs.push({
        label: `GET ${route} (500 seats, 20 servers)`,
        series: 'reads',
        concurrency: 1,
        requests: readRequests,
        duration_s: round(phaseS, 3)!,
        errors,
        p50_ms: round(p50),
        p90_ms: round(percentile(sorted, 0.9)),
        p99_ms: round(p99),
        mean_ms: round(samples.reduce((sum, sample) => sum + sample, 0) / samples.length),
        max_ms: round(sorted[sorted.length - 1] ?? null),
        throughput_per_s: round(readRequests / phaseS, 1),
        samples_ms: samples.map((sample) => round(sample)!),
        floor: {
          metric: 'p99_ms',
          value: 15,
          comparison: 'at_most',
          description: `GET ${route} p99 for a customer with 500 seats and 20 servers`,
        },
      });
    }

    await readPool.close();

    // ---- 2. the scheduler: seats all due at the same instant (BENCH_BILLING_SEATS=0 skips it) ----
    if (seatCount > 0) {
      const seatsPerCustomer = Math.ceil(seatCount / customerCount);
      const customers = Array.from({ length: customerCount }, (_, index) => `cus_bench_${String(index).padStart(5, '0')}`);
      log(`crediting ${customers.length} wallets`);
      await inParallel(customers, 16, async (customerId) => {
        await walletClient.call('Credit', {
          customer_id: customerId,
          entry_id: `topup:bench:${customerId}`,
          amount_eur_cents: seatsPerCustomer * 1_200,
          reason: 'topup',
          reference: 'bench',
        });
      });
      // The ceiling the wallet sets: as many plain Debit calls, at the scheduler's concurrency, straight to the wallet.
      const ceilingCount = Math.min(seatCount, 1_000);
      log(`measuring the wallet's own Debit throughput (${ceilingCount} debits, concurrency ${schedulerConcurrency})`);
      await inParallel(customers, 16, async (customerId) => {
        await walletClient.call('Credit', {
          customer_id: customerId,
          entry_id: `topup:bench:ceiling:${customerId}`,
          amount_eur_cents: 100,
          reason: 'topup',
          reference: 'bench',
        });
      });
      const ceilingSamples: number[] = [];
      const ceilingStarted = performance.now();
      await inParallel(
        Array.from({ length: ceilingCount }, (_, index) => index),
        schedulerConcurrency,
        async (index) => {
          const started = performance.now();
          await walletClient.call('Debit', {
            customer_id: customers[index % customers.length]!,
            entry_id: `bench:ceiling:${index}`,
            amount_eur_cents: 1,
            reason: 'seat',
            reference: 'bench',
          });
          ceilingSamples.push(performance.now() - started);
        },
      );
      const ceilingS = (performance.now() - ceilingStarted) / 1000;
      const ceilingSorted = [...ceilingSamples].sort((a, b) => a - b);
      log(`wallet Debit alone: ${(ceilingCount / ceilingS).toFixed(1)} debits/s, p50 ${percentile(ceilingSorted, 0.5)?.toFixed(1)} ms`);
      runs.push({
        label: `wallet Debit alone (reference), ${ceilingCount.toLocaleString('en')} calls`,
        series: 'wallet debit',
        concurrency: schedulerConcurrency,
        requests: ceilingCount,
        duration_s: round(ceilingS, 3)!,
        errors: 0,
        unit: 'debits',
        p50_ms: round(percentile(ceilingSorted, 0.5)),
        p90_ms: round(percentile(ceilingSorted, 0.9)),
        p99_ms: round(percentile(ceilingSorted, 0.99)),
        throughput_per_s: round(ceilingCount / ceilingS, 1),
      });

      const due = new Date(now.getTime() - 60_000);
      const seeds: SeedSeat[] = [];
      for (let index = 0; index < seatCount; index += 1) {
        seeds.push({
          customerId: customers[index % customers.length]!,
          accountId: `acc_${index}`,
          anchor: addMonthsClamped(due, -1),
          paidUntil: due,
          nextActionAt: due,
        });
      }
      // Every ledger entry so far; the scheduler must add exactly one debit per renewed seat to these.
      const entriesBefore = Number(
        (await walletClient.call<{ entries_checked: number }>('Audit', {}, { deadlineMs: 600_000 })).entries_checked,
      );
      log(`seeding ${seatCount} seats due at ${due.toISOString()}`);
      await seedSeats(collections, seeds, now);

      log('running scheduler ticks until every seat is charged');
      const cpuProcesses = new Map<string, number | undefined>(processes.map((service) => [service.name, service.pid]));
      cpuProcesses.set('ferretdb', infrastructure.store?.pid);
      if (infrastructure.store?.backend) cpuProcesses.set('postgresql', infrastructure.store.backend.pid);
      cpuProcesses.set('nats-server', infrastructure.nats?.pid);
      cpuProcesses.set('benchmark client', process.pid);
      const loadBefore = os.loadavg()[0]!;
      const commandsBefore = await readStoreCommands(infrastructure.store?.metricsUrl);
      const stopCpu = measureProcessCpu(cpuProcesses);
      const tickDurations: number[] = [];
      let charged = 0;
      let alreadyCharged = 0;
      let deferred = 0;
      const started = performance.now();
      // Each tick works for at most 80 % of its 60 s lease slot; ticks repeat until every seat is charged.
      for (let tick = 0; charged + alreadyCharged < seatCount && performance.now() - started < schedulerBudgetMs; tick += 1) {
        const tickStarted = performance.now();
        const report = await billingClient.call<{ charged: number; already_charged: number; deferred: number; processed: number }>(
          'RunSchedulerTick',
          { respect_lease: false },
          { deadlineMs: 120_000 },
        );
        tickDurations.push(performance.now() - tickStarted);
        charged += report.charged;
        alreadyCharged += report.already_charged;
        deferred += report.deferred;
        log(
          `tick ${tick + 1}: charged ${report.charged}, deferred ${report.deferred}, processed ${report.processed} in ${Math.round(performance.now() - tickStarted)} ms`,
        );
        if (report.processed === 0 && report.deferred === 0) break;
      }
      const elapsedS = (performance.now() - started) / 1000;
      const cpuSpent = stopCpu();
      const commandsAfter = await readStoreCommands(infrastructure.store?.metricsUrl);
      // The store is the truth: a customer whose tick failed half-way may have renewals the reports missed.
      const renewed = await collections.seats.countDocuments({ cycle: 2, status: 'active' });
      log(`seats renewed in the store: ${renewed}`);
      charged = renewed;
      const audit = await walletClient.call<{ ok: boolean; breaches: string[]; entries_checked: number }>(
        'Audit',
        {},
        { deadlineMs: 600_000 },
      );
      log(`charged ${charged} (replays ${alreadyCharged}, deferred ${deferred}) in ${elapsedS.toFixed(2)} s; wallet audit ok=${audit.ok}`);
      if (!audit.ok) notes.push(`wallet audit breaches: ${(audit.breaches ?? []).slice(0, 5).join('; ')}`);
      const expectedEntries = entriesBefore + renewed;
      if (Number(audit.entries_checked) !== expectedEntries)
        notes.push(`ledger has ${audit.entries_checked} entries, expected ${expectedEntries} (one debit per renewed seat)`);
      else log(`ledger holds exactly one debit per renewed seat (${audit.entries_checked} entries)`);
      if (charged !== seatCount) notes.push(`only ${charged} of ${seatCount} seats were charged (${deferred} deferred)`);
      const cpu = describeCpuPerUnit(cpuSpent, charged, elapsedS);
      log(`scheduler part: ${cpu}`);
      const storeCommands = describeStoreCommandsPerUnit(commandsBefore, commandsAfter, charged);
      if (storeCommands) {
        log(`scheduler part: ${storeCommands}`);
        notes.push(`Scheduler part: ${storeCommands} (FerretDB's own counters; the benchmark's checks come after).`);
      }
      notes.push(
        `Scheduler part: ${cpu}; 1-minute load average ${loadBefore.toFixed(1)} before and ${os.loadavg()[0]!.toFixed(1)} after on ${os.cpus().length} cores ` +
          '(other work shares this machine, so the charges per second move with it more than the CPU per charge does).',
      );
      runs.push({
        label: `scheduler: ${seatCount.toLocaleString('en')} seats due at once`,
        series: 'scheduler',
        concurrency: schedulerConcurrency,
        requests: charged,
        duration_s: round(elapsedS, 3)!,
        errors: seatCount - charged,
        unit: 'charges',
        p50_ms: null,
        p90_ms: null,
        p99_ms: null,
        throughput_per_s: round(charged / elapsedS, 1),
        floor: {
          metric: 'throughput_per_s',
          value: 1_000,
          comparison: 'at_least',
          description: 'charges per second through the wallet Debit, 10,000 seats due at once',
        },
      });
    }
  } finally {
    for (const client of clients) client.close();
    await mongo?.close().catch(() => undefined);
    for (const service of processes.reverse()) await service.stop(15_000).catch(() => undefined);
    await infrastructure.stop();
    fs.rmSync(dataDirectory, { recursive: true, force: true });
  }
  const result: BenchResult = {
    name: 'billing',
    title: 'Billing: renewals and subscription reads',
    description:
      "The scheduler renewing seats that are all due at the same instant, each through the wallet's idempotent Debit (real wallet, billing and gateway processes on the local store), and the read endpoints for a customer with 500 seats and 20 servers (sequential requests through the gateway after a warm-up).",
    date: new Date().toISOString(),
    machine: currentMachine(),
    runs,
    ...(notes.length > 0 ? { notes: notes.join('\n') } : {}),
  };
  for (const file of writeBenchResult(result)) log(`written: ${path.relative(process.cwd(), file)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
