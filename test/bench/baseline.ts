/**
 * A benchmark's baseline: the small, committed summary of a run (test/bench/baselines/<name>.json), made from the
 * raw run the benchmark writes to the git-ignored test/bench/results/<name>.json. It keeps what a later run is
 * compared with — each run's percentiles, throughput, errors, floor, CPU per unit per process — and the machine
 * (cores, CPU model, memory, Node), and drops the sample arrays the report plots. Its shape is the raw run's
 * (`BenchResult`, docs/performance.md "Result and baseline files"), so the report reads either.
 *
 *   npx tsx test/bench/baseline.ts [name ...]   baselines from the raw runs in test/bench/results (all by default)
 *
 * A benchmark writes its baseline itself when run with `--baseline` or `BENCH_WRITE_BASELINE=1`
 * (`writeBenchResult`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultResultsDirectory, runStatusFile, validateResult, type BenchResult, type BenchRun } from './report';

export const defaultBaselinesDirectory = path.join(__dirname, 'baselines');

/** Per-run fields that hold series for plots, not figures to compare: left out of a baseline. */
const plotOnlyFields = new Set(['samples_ms', 'histogram', 'p99_ms_by_second', 'paired_p50_differences_ms']);

/** The run without its plot series; every scalar and every per-process CPU breakdown stays. */
export function baselineRun(run: BenchRun): BenchRun {
  return Object.fromEntries(Object.entries(run).filter(([field]) => !plotOnlyFields.has(field))) as unknown as BenchRun;
}

export function toBaseline(result: BenchResult): BenchResult {
  return { ...result, runs: result.runs.map(baselineRun) };
}

const asJson = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** A baseline as JSON with one line per run, so a new baseline's diff reads run by run. */
function baselineJson(baseline: BenchResult): string {
  const { runs, ...rest } = baseline;
  const head = JSON.stringify(rest, null, 2).replace(/\n}$/, '');
  return `${head},\n  "runs": [\n${runs.map((run) => `    ${JSON.stringify(run)}`).join(',\n')}\n  ]\n}\n`;
}

/** Whether this process was asked to write a baseline as well as the raw run. */
export const baselineRequested = (argv = process.argv, env = process.env): boolean =>
  argv.includes('--baseline') || env.BENCH_WRITE_BASELINE === '1';

/**
 * What every benchmark calls at its end: the raw run to `file` (test/bench/results/<name>.json unless told
 * otherwise), and, when asked, the baseline to test/bench/baselines/<name>.json. Returns the files written.
 */
export function writeBenchResult(
  result: BenchResult,
  options: { file?: string; baseline?: boolean; baselinesDirectory?: string } = {},
): string[] {
  const file = options.file ?? path.join(defaultResultsDirectory, `${result.name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, asJson(result));
  if (!(options.baseline ?? baselineRequested())) return [file];
  const baselineFile = path.join(options.baselinesDirectory ?? defaultBaselinesDirectory, `${result.name}.json`);
  fs.mkdirSync(path.dirname(baselineFile), { recursive: true });
  fs.writeFileSync(baselineFile, baselineJson(toBaseline(validateResult(result))));
  return [file, baselineFile];
}

/** Baselines for the named benchmarks (every raw run present when none is named) from a results directory. */
export function writeBaselinesFromResults(
  names: string[] = [],
  resultsDirectory = defaultResultsDirectory,
  baselinesDirectory = defaultBaselinesDirectory,
): string[] {
  const available = fs.existsSync(resultsDirectory)
    ? fs
        .readdirSync(resultsDirectory)
        .filter((file) => file.endsWith('.json') && file !== runStatusFile)
        .map((file) => file.slice(0, -'.json'.length))
    : [];
  const selected = names.length > 0 ? names : available;
  const missing = selected.filter((name) => !available.includes(name));
  if (missing.length > 0) throw new Error(`no raw run in ${resultsDirectory} for: ${missing.join(', ')}`);
  fs.mkdirSync(baselinesDirectory, { recursive: true });
  return selected.map((name) => {
    const result = validateResult(JSON.parse(fs.readFileSync(path.join(resultsDirectory, `${name}.json`), 'utf8')));
    const file = path.join(baselinesDirectory, `${result.name}.json`);
    fs.writeFileSync(file, baselineJson(toBaseline(result)));
    return file;
  });
}

if (require.main === module) {
  for (const file of writeBaselinesFromResults(process.argv.slice(2).filter((arg) => !arg.startsWith('--')))) {
    process.stderr.write(`baseline: ${path.relative(process.cwd(), file)} (${fs.statSync(file).size} bytes)\n`);
  }
}
