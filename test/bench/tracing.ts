/**
 * `npm run bench:tracing`: the cost of tracing on the hot path. Runs the execution benchmark twice in one go,
 * once with the OpenTelemetry SDK switched off in every service and once with every span and metric exported
 * over OTLP/HTTP, and reports the throughput ratio and the p50 difference (targets: ≤ 15 % of throughput,
 * ≤ 1 ms at p50). Writes test/bench/results/tracing.json.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { currentMachine, type BenchResult, type BenchRun } from './report';

const seconds = process.env.BENCH_TRACING_SECONDS ?? '6';
const concurrencies = process.env.BENCH_TRACING_CONCURRENCY ?? '1,16';
const resultsFile = path.join(__dirname, 'results', 'tracing.json');

function runMode(mode: 'off' | 'export'): BenchResult {
  const output = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-bench-tracing-')), `${mode}.json`);
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'execution.ts')], {
    env: { ...process.env, BENCH_EXECUTION_TRACING: mode, BENCH_EXECUTION_SECONDS: seconds, BENCH_EXECUTION_CONCURRENCY: concurrencies, BENCH_EXECUTION_OUTPUT: output },
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 15 * 60_000,
  });
  if (child.status !== 0) throw new Error(`execution benchmark with tracing ${mode} failed (${child.status ?? child.signal})`);
  return JSON.parse(fs.readFileSync(output, 'utf8')) as BenchResult;
}

const restRuns = (result: BenchResult) => result.runs.filter((run) => run.label.startsWith('REST'));

function main(): void {
  const off = runMode('off');
  const exporting = runMode('export');
  const runs: BenchRun[] = [];
  const notes: string[] = [];
  for (const withoutTracing of restRuns(off)) {
    const withTracing = restRuns(exporting).find((run) => run.concurrency === withoutTracing.concurrency);
    if (!withTracing) continue;
    runs.push({ ...withoutTracing, label: `REST 20-leg batch, tracing off, concurrency ${withoutTracing.concurrency}`, series: 'tracing off', floor: undefined });
    const throughputCost = withoutTracing.throughput_per_s && withTracing.throughput_per_s ? 1 - withTracing.throughput_per_s / withoutTracing.throughput_per_s : null;
    const p50Cost = withTracing.p50_ms !== null && withoutTracing.p50_ms !== null ? withTracing.p50_ms - withoutTracing.p50_ms : null;
    runs.push({
      ...withTracing,
      label: `REST 20-leg batch, tracing exported, concurrency ${withTracing.concurrency}`,
      series: 'tracing on and exporting',
      floor: withoutTracing.p50_ms === null ? undefined : { metric: 'p50_ms', value: Math.round((withoutTracing.p50_ms + 1) * 100) / 100, comparison: 'at_most', description: 'tracing adds ≤ 1 ms at p50 over the same run with tracing off' },
    });
    notes.push(`c=${withTracing.concurrency}: throughput cost ${throughputCost === null ? 'n/a' : `${(throughputCost * 100).toFixed(1)} %`} (target ≤ 15 %), p50 cost ${p50Cost === null ? 'n/a' : `${p50Cost.toFixed(2)} ms`} (target ≤ 1 ms).`);
  }
  const result: BenchResult = {
    name: 'tracing',
    title: 'Tracing overhead on the execution hot path',
    description: 'The REST 20-leg batch of bench:execution, run with the OpenTelemetry SDK off in every service and then with every span and metric exported over OTLP/HTTP (JSON) to a receiver on the same machine.',
    date: new Date().toISOString(),
    machine: currentMachine(),
    runs,
    notes: notes.join(' '),
  };
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  fs.writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
  for (const note of notes) process.stdout.write(`[bench:tracing] ${note}\n`);
}

main();
