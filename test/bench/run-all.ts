/**
 * `npm run bench`: runs every benchmark the repository defines (each root package.json script named
 * `bench:<name>`, one after the other, since they measure the machine and must not share it), records how
 * each ended in results/run-all.json, then builds the report (report.ts): results/report.html and the
 * Markdown table printed at the end.
 *
 *   npm run bench                      every benchmark, then the report
 *   npm run bench -- execution wallet  only those, then the report (of everything in results/)
 *   npm run bench -- --report-only     just rebuild the report
 *   npm run bench -- --baseline        also write each benchmark's baseline (test/bench/baselines/<name>.json)
 *
 * BENCH_TIMEOUT_MINUTES bounds each benchmark (default 30). The exit status is 1 when any benchmark failed
 * or timed out; the report is written either way. The raw runs and the report stay in the git-ignored results/;
 * the baselines are what is committed (docs/performance.md, "Result and baseline files").
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { defaultResultsDirectory, definedBenchmarks, runStatusFile, writeReport, type RunAllStatus } from './report';

const repositoryRoot = path.resolve(__dirname, '..', '..');

function runScript(
  script: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<{ status: 'ok' | 'failed' | 'timeout'; exitCode: number | null }> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout stops the benchmark and every service it started.
    const child = spawn('npm', ['run', '--silent', script], { cwd: repositoryRoot, stdio: 'inherit', detached: true, env });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.stderr.write(`[bench] ${script} exceeded ${timeoutMs / 60_000} min; stopping it\n`);
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 15_000).unref();
    }, timeoutMs);
    const forward = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Already gone.
      }
    };
    process.once('SIGINT', forward);
    process.once('SIGTERM', forward);
    child.once('exit', (code) => {
      clearTimeout(timer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ status: timedOut ? 'timeout' : code === 0 ? 'ok' : 'failed', exitCode: code });
    });
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const reportOnly = args.includes('--report-only');
  // Each benchmark writes its own baseline when this is set (baseline.ts).
  const env = args.includes('--baseline') ? { ...process.env, BENCH_WRITE_BASELINE: '1' } : process.env;
  const requested = args.filter((arg) => !arg.startsWith('--'));
  const defined = definedBenchmarks();
  const unknown = requested.filter((name) => !defined.includes(name));
  if (unknown.length > 0) {
    process.stderr.write(`[bench] no such benchmark: ${unknown.join(', ')} (defined: ${defined.join(', ') || 'none'})\n`);
    return 2;
  }
  const selected = reportOnly ? [] : requested.length > 0 ? requested : defined;
  const timeoutMs = Number(process.env.BENCH_TIMEOUT_MINUTES ?? 30) * 60_000;
  fs.mkdirSync(defaultResultsDirectory, { recursive: true });
  const status: RunAllStatus = { started_at: new Date().toISOString(), benchmarks: [] };
  for (const [index, name] of selected.entries()) {
    const script = `bench:${name}`;
    process.stderr.write(`\n[bench] (${index + 1}/${selected.length}) npm run ${script}\n`);
    const startedMs = Date.now();
    const outcome = await runScript(script, timeoutMs, env);
    const durationS = (Date.now() - startedMs) / 1000;
    status.benchmarks.push({
      name,
      script,
      status: outcome.status,
      exit_code: outcome.exitCode,
      duration_s: Math.round(durationS * 10) / 10,
    });
    process.stderr.write(`[bench] ${script}: ${outcome.status} in ${durationS.toFixed(1)} s\n`);
    if (outcome.status === 'ok' && !fs.existsSync(path.join(defaultResultsDirectory, `${name}.json`))) {
      process.stderr.write(`[bench] ${script} finished but wrote no results/${name}.json\n`);
    }
  }
  if (!reportOnly) fs.writeFileSync(path.join(defaultResultsDirectory, runStatusFile), `${JSON.stringify(status, null, 2)}\n`);
  const report = writeReport();
  process.stdout.write(`\n${report.markdown}\n`);
  process.stderr.write(`[bench] report: ${path.relative(process.cwd(), report.htmlFile)}\n`);
  return status.benchmarks.every((benchmark) => benchmark.status === 'ok') ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`[bench] failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
