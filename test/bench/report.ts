/**
 * Builds test/bench/results/report.html (one self-contained page: inline CSS and SVG plots, nothing
 * fetched) and a Markdown table of the latest figures (stdout and results/report.md) from the
 * results/<name>.json files the benchmarks write. The shape is documented in docs/performance.md ("Result and
 * baseline files"). Missing or unreadable files leave a gap and a note, never a failed report.
 *
 * `tsx test/bench/report.ts [results-directory]`; `tsx test/bench/report.ts test/bench/baselines` renders the
 * committed baselines (without latency curves: a baseline keeps no samples).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BenchFloor {
  metric: string;
  value: number;
  comparison: 'at_most' | 'at_least';
  description?: string;
  /** A target of two figures at once (≥ 1000/s with p99 ≤ 20 ms): the run passes only if this holds too. */
  and?: BenchFloor;
}

export interface BenchRun {
  label: string;
  concurrency: number;
  /** Runs with the same series are joined by one line in the throughput plot; default: the benchmark. */
  series?: string;
  requests?: number;
  duration_s?: number;
  errors?: number;
  unit?: string;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  mean_ms?: number | null;
  max_ms?: number | null;
  throughput_per_s: number | null;
  samples_ms?: number[];
  histogram?: Array<{ le_ms: number; count: number }>;
  cumulative?: boolean;
  floor?: BenchFloor;
  /** Set on an open-loop run: the load offered (starts per second, on a schedule), whatever the answers did. */
  offered_per_s?: number;
  /**
   * Set on an open-loop run: the p99 of the answers in each second of the run, in order, so one stalled second
   * (a pause somewhere) reads apart from a backlog that grows through the run (too little capacity).
   */
  p99_ms_by_second?: Array<number | null>;
}

/** p99 of each whole second of `timeline` ([offset from the run's start, latency] pairs, ms), in order. */
export function p99BySecond(timeline: Array<[number, number]>): Array<number | null> {
  const seconds: number[][] = [];
  for (const [offsetMs, latencyMs] of timeline) (seconds[Math.floor(offsetMs / 1000)] ??= []).push(latencyMs);
  return Array.from(seconds, (latencies) =>
    roundTo(
      percentile(
        (latencies ?? []).sort((left, right) => left - right),
        0.99,
      ),
      1,
    ),
  );
}

/** The value at `fraction` (0–1) of an ascending list, nearest rank; null for an empty list. */
export function percentile(sorted: number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export const roundTo = (value: number | null, digits = 2): number | null => (value === null ? null : Number(value.toFixed(digits)));

/**
 * A run's figures from its latencies (ms, any order): percentiles, mean, max, throughput over `durationS`, and
 * at most about 2,000 evenly spaced samples for the plots. The same for every benchmark, so their rows compare.
 */
export function runFromLatencies(
  identity: Pick<BenchRun, 'label' | 'concurrency' | 'unit'> & Partial<Pick<BenchRun, 'series'>>,
  latencies: number[],
  durationS: number,
  errors: number,
): BenchRun {
  const sorted = [...latencies].sort((left, right) => left - right);
  const step = Math.max(1, Math.floor(sorted.length / 2_000));
  return {
    ...identity,
    requests: sorted.length,
    duration_s: roundTo(durationS, 3)!,
    errors,
    p50_ms: roundTo(percentile(sorted, 0.5)),
    p90_ms: roundTo(percentile(sorted, 0.9)),
    p99_ms: roundTo(percentile(sorted, 0.99)),
    mean_ms: roundTo(sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length)),
    max_ms: roundTo(sorted.at(-1) ?? null),
    throughput_per_s: roundTo(sorted.length / Math.max(1e-9, durationS), 1),
    samples_ms: sorted.filter((_, index) => index % step === 0).map((value) => roundTo(value, 3)!),
  };
}

export interface MachineInfo {
  cpu_model: string;
  cpu_count: number;
  memory_bytes: number;
  os: string;
  node: string;
}

export interface BenchResult {
  name: string;
  title?: string;
  description?: string;
  date: string;
  machine?: MachineInfo;
  runs: BenchRun[];
  notes?: string;
}

export interface RunAllStatus {
  started_at: string;
  benchmarks: Array<{ name: string; script: string; status: 'ok' | 'failed' | 'timeout'; exit_code: number | null; duration_s: number }>;
}

export interface LoadedResults {
  results: BenchResult[];
  /** Files that exist but could not be used, with the reason. */
  problems: Array<{ file: string; reason: string }>;
  /** Benchmarks the repository defines (bench:* scripts) that left no results file. */
  missing: string[];
  runStatus?: RunAllStatus;
}

export const defaultResultsDirectory = path.join(__dirname, 'results');
export const runStatusFile = 'run-all.json';

export function currentMachine(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model.trim() ?? 'unknown CPU',
    cpu_count: cpus.length,
    memory_bytes: os.totalmem(),
    os: `${os.platform()} ${os.release()} (${os.arch()})`,
    node: process.version,
  };
}

/** Names of the benchmarks the repository defines: the root package.json's `bench:<name>` scripts. */
export function definedBenchmarks(packageFile = path.join(__dirname, '..', '..', 'package.json')): string[] {
  try {
    const scripts = (JSON.parse(fs.readFileSync(packageFile, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
    return Object.keys(scripts)
      .filter((name) => name.startsWith('bench:'))
      .map((name) => name.slice('bench:'.length));
  } catch {
    return [];
  }
}

const isNumberOrNull = (value: unknown) => value === null || (typeof value === 'number' && Number.isFinite(value));

/** Checks the documented shape; throws with the first problem found. */
export function validateResult(value: unknown): BenchResult {
  const result = value as Partial<BenchResult> | null;
  if (!result || typeof result !== 'object') throw new Error('not a JSON object');
  if (typeof result.name !== 'string' || result.name === '') throw new Error('"name" must be a non-empty string');
  if (typeof result.date !== 'string' || Number.isNaN(Date.parse(result.date))) throw new Error('"date" must be an ISO 8601 timestamp');
  if (!Array.isArray(result.runs) || result.runs.length === 0) throw new Error('"runs" must be a non-empty array');
  result.runs.forEach((run, index) => {
    const where = `runs[${index}]`;
    if (!run || typeof run !== 'object') throw new Error(`${where} must be an object`);
    if (typeof run.label !== 'string') throw new Error(`${where}.label must be a string`);
    if (typeof run.concurrency !== 'number' || !(run.concurrency > 0)) throw new Error(`${where}.concurrency must be a positive number`);
    for (const field of ['p50_ms', 'p90_ms', 'p99_ms', 'throughput_per_s'] as const) {
      if (!isNumberOrNull(run[field])) throw new Error(`${where}.${field} must be a number or null`);
    }
    if (
      run.samples_ms !== undefined &&
      (!Array.isArray(run.samples_ms) || !run.samples_ms.every((sample) => typeof sample === 'number' && Number.isFinite(sample)))
    ) {
      throw new Error(`${where}.samples_ms must be an array of numbers`);
    }
    if (
      run.histogram !== undefined &&
      (!Array.isArray(run.histogram) ||
        !run.histogram.every((bucket) => typeof bucket?.le_ms === 'number' && typeof bucket?.count === 'number'))
    ) {
      throw new Error(`${where}.histogram must be an array of {le_ms, count}`);
    }
    for (let floor = run.floor, path = `${where}.floor`; floor !== undefined; floor = floor.and, path = `${path}.and`) {
      if (
        typeof floor.metric !== 'string' ||
        typeof floor.value !== 'number' ||
        (floor.comparison !== 'at_most' && floor.comparison !== 'at_least')
      ) {
        throw new Error(`${path} needs metric (string), value (number) and comparison ("at_most" or "at_least")`);
      }
    }
  });
  return result as BenchResult;
}

export function loadResults(directory = defaultResultsDirectory, expected: string[] = definedBenchmarks()): LoadedResults {
  const loaded: LoadedResults = { results: [], problems: [], missing: [] };
  const files = fs.existsSync(directory)
    ? fs
        .readdirSync(directory)
        .filter((file) => file.endsWith('.json') && file !== runStatusFile)
        .sort()
    : [];
  for (const file of files) {
    try {
      loaded.results.push(validateResult(JSON.parse(fs.readFileSync(path.join(directory, file), 'utf8'))));
    } catch (error) {
      loaded.problems.push({ file, reason: (error as Error).message });
    }
  }
  const present = new Set(loaded.results.map((result) => result.name));
  loaded.missing = expected.filter((name) => !present.has(name));
  const statusPath = path.join(directory, runStatusFile);
  if (fs.existsSync(statusPath)) {
    try {
      loaded.runStatus = JSON.parse(fs.readFileSync(statusPath, 'utf8')) as RunAllStatus;
    } catch {
      loaded.problems.push({ file: runStatusFile, reason: 'not valid JSON' });
    }
  }
  return loaded;
}

export interface FloorOutcome {
  figure: number | null;
  passed: boolean | null;
}

/** `figure` is the first metric's; `passed` holds only if every chained (`and`) floor holds. */
export function floorOutcome(run: BenchRun): FloorOutcome | undefined {
  if (!run.floor) return undefined;
  let first: number | null | undefined;
  let passed: boolean | null = true;
  for (let floor: BenchFloor | undefined = run.floor; floor !== undefined; floor = floor.and) {
    const figure = (run as unknown as Record<string, unknown>)[floor.metric];
    const known = typeof figure === 'number' && Number.isFinite(figure) ? figure : null;
    if (first === undefined) first = known;
    if (known === null) passed = null;
    else if (passed !== null && !(floor.comparison === 'at_most' ? known <= floor.value : known >= floor.value)) passed = false;
  }
  return { figure: first ?? null, passed };
}

// ---------------------------------------------------------------------------------------------------
// Formatting

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value);
  const digits = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Axis labels: as few decimals as the tick needs (0, 2.5, 50, 1,000). */
function formatTick(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

function formatFloor(floor: BenchFloor): string {
  const own = `${floor.metric} ${floor.comparison === 'at_most' ? '≤' : '≥'} ${formatNumber(floor.value)}`;
  return floor.and ? `${own} and ${formatFloor(floor.and)}` : own;
}

export function describeMachine(machine: MachineInfo): string {
  return `${machine.cpu_model}, ${machine.cpu_count} CPU${machine.cpu_count === 1 ? '' : 's'}, ${(machine.memory_bytes / 1024 ** 3).toFixed(1)} GiB RAM, ${machine.os}, Node ${machine.node}`;
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The table the README pastes: one row per run, with the floor and whether it holds. */
export function renderMarkdown(loaded: LoadedResults, machine: MachineInfo, generatedAt: Date): string {
  const lines = [
    '| Benchmark | Run | Concurrency | p50 ms | p90 ms | p99 ms | Throughput /s | Floor | Result |',
    '|---|---|--:|--:|--:|--:|--:|---|---|',
  ];
  for (const result of loaded.results) {
    for (const run of result.runs) {
      const outcome = floorOutcome(run);
      const verdict = outcome === undefined ? '' : outcome.passed === null ? 'not measured' : outcome.passed ? 'pass' : '**FAIL**';
      lines.push(
        `| ${escapeCell(result.title ?? result.name)} | ${escapeCell(run.label)} | ${run.concurrency} | ${formatNumber(run.p50_ms)} | ${formatNumber(run.p90_ms)} | ${formatNumber(run.p99_ms)} | ${formatNumber(run.throughput_per_s)}${run.unit ? ` ${escapeCell(run.unit)}` : ''} | ${run.floor ? escapeCell(formatFloor(run.floor)) : ''} | ${verdict} |`,
      );
    }
  }
  for (const name of loaded.missing) lines.push(`| ${escapeCell(name)} | no results | | | | | | | |`);
  const dates = loaded.results.map((result) => result.date).sort();
  const measured = dates.length
    ? `measured ${dates[0]!.slice(0, 10)}${dates.at(-1)!.slice(0, 10) !== dates[0]!.slice(0, 10) ? ` to ${dates.at(-1)!.slice(0, 10)}` : ''}`
    : 'no measurements';
  const machines = [...new Set(loaded.results.map((result) => describeMachine(result.machine ?? machine)))];
  return `${lines.join('\n')}\n\n_${measured} on ${machines.length ? machines.join('; ') : describeMachine(machine)} (report generated ${generatedAt.toISOString()})._\n`;
}

// ---------------------------------------------------------------------------------------------------
// SVG plots

const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const percentileColors = { p50_ms: '#4e79a7', p90_ms: '#f28e2b', p99_ms: '#e15759' } as const;

/** Round tick steps (1, 2, 5 × 10^n) so axes read naturally. */
export function niceTicks(maximum: number, count = 5): number[] {
  if (!(maximum > 0)) return [0, 1];
  const rough = maximum / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let tick = 0; tick < maximum + step * 0.999; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const plotWidth = (frame: Frame) => frame.width - frame.left - frame.right;
const plotHeight = (frame: Frame) => frame.height - frame.top - frame.bottom;

function svgOpen(frame: Frame, title: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${frame.width} ${frame.height}" width="${frame.width}" height="${frame.height}" role="img" aria-label="${escapeHtml(title)}"><title>${escapeHtml(title)}</title>`;
}

function yAxis(frame: Frame, ticks: number[], unit: string): string {
  const top = ticks.at(-1)!;
  const parts = ticks.map((tick) => {
    const y = frame.top + plotHeight(frame) * (1 - tick / top);
    return `<line x1="${frame.left}" x2="${frame.width - frame.right}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" class="grid"/><text x="${frame.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" class="tick">${formatTick(tick)}</text>`;
  });
  parts.push(
    `<text x="14" y="${frame.top + plotHeight(frame) / 2}" transform="rotate(-90 14 ${frame.top + plotHeight(frame) / 2})" text-anchor="middle" class="axis-label">${escapeHtml(unit)}</text>`,
  );
  return parts.join('');
}

interface LegendEntry {
  label: string;
  color: string;
}

const legendEntryWidth = (entry: LegendEntry) => 28 + entry.label.length * 6.5;

/** How many rows a legend needs when it flows left to right inside the plot's width. */
function legendRowCount(entries: LegendEntry[], width: number, left: number, right: number): number {
  let rows = entries.length ? 1 : 0;
  let x = left;
  for (const entry of entries) {
    if (x > left && x + legendEntryWidth(entry) > width - right) {
      rows++;
      x = left;
    }
    x += legendEntryWidth(entry);
  }
  return rows;
}

/** Swatches and labels above the plot, wrapping to a new row when the next one would not fit. */
function legend(frame: Frame, entries: LegendEntry[]): string {
  let x = frame.left;
  let row = 0;
  return entries
    .map((entry) => {
      if (x > frame.left && x + legendEntryWidth(entry) > frame.width - frame.right) {
        row++;
        x = frame.left;
      }
      const y = 6 + row * 18;
      const item = `<rect x="${x}" y="${y}" width="12" height="12" rx="2" fill="${entry.color}"/><text x="${x + 16}" y="${y + 10}" class="legend">${escapeHtml(entry.label)}</text>`;
      x += legendEntryWidth(entry);
      return item;
    })
    .join('');
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** p50, p90 and p99 side by side for every run. */
export function latencyBarsSvg(result: BenchResult): string {
  const runs = result.runs;
  const groupWidth = 96;
  const frame: Frame = { width: Math.max(520, 70 + runs.length * groupWidth), height: 300, left: 62, right: 16, top: 30, bottom: 58 };
  const maximum = Math.max(
    0,
    ...runs.flatMap((run) => [run.p50_ms, run.p90_ms, run.p99_ms].filter((value): value is number => typeof value === 'number')),
  );
  const ticks = niceTicks(maximum);
  const top = ticks.at(-1)!;
  const slot = plotWidth(frame) / runs.length;
  const barWidth = Math.min(22, (slot - 18) / 3);
  const bars = runs.map((run, index) => {
    const center = frame.left + slot * index + slot / 2;
    const rects = (['p50_ms', 'p90_ms', 'p99_ms'] as const).map((key, offset) => {
      const value = run[key];
      const x = center + (offset - 1.5) * barWidth;
      if (typeof value !== 'number')
        return `<text x="${(x + barWidth / 2).toFixed(1)}" y="${frame.top + plotHeight(frame) - 4}" text-anchor="middle" class="tick">–</text>`;
      const height = (plotHeight(frame) * Math.max(0, value)) / top;
      const y = frame.top + plotHeight(frame) - height;
      return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" fill="${percentileColors[key]}"><title>${escapeHtml(`${run.label}: ${key.replace('_ms', '')} ${formatNumber(value)} ms`)}</title></rect>`;
    });
    const label = `<text x="${center.toFixed(1)}" y="${frame.height - frame.bottom + 16}" text-anchor="middle" class="tick">${escapeHtml(shorten(run.label, Math.max(6, Math.floor(slot / 6.2))))}</text><text x="${center.toFixed(1)}" y="${frame.height - frame.bottom + 30}" text-anchor="middle" class="tick muted">c=${run.concurrency}</text>`;
    return rects.join('') + label;
  });
  return `${svgOpen(frame, `${result.name}: latency percentiles`)}${yAxis(frame, ticks, 'latency (ms)')}${bars.join('')}${legend(frame, [
    { label: 'p50', color: percentileColors.p50_ms },
    { label: 'p90', color: percentileColors.p90_ms },
    { label: 'p99', color: percentileColors.p99_ms },
  ])}</svg>`;
}

/** Cumulative distribution points (latency, fraction) from raw samples or bucket counts; at most ~200 points. */
export function cdfPoints(run: BenchRun): Array<[number, number]> {
  if (run.samples_ms && run.samples_ms.length > 0) {
    const sorted = [...run.samples_ms].sort((left, right) => left - right);
    const step = Math.max(1, Math.floor(sorted.length / 200));
    const points: Array<[number, number]> = [];
    for (let index = 0; index < sorted.length; index += step) points.push([sorted[index]!, (index + 1) / sorted.length]);
    points.push([sorted.at(-1)!, 1]);
    return points;
  }
  if (run.histogram && run.histogram.length > 0) {
    const buckets = [...run.histogram].sort((left, right) => left.le_ms - right.le_ms);
    let running = 0;
    const cumulative = buckets.map((bucket) => (run.cumulative ? bucket.count : (running += bucket.count)));
    const total = cumulative.at(-1)!;
    if (!(total > 0)) return [];
    return buckets.map((bucket, index) => [bucket.le_ms, cumulative[index]! / total]);
  }
  return [];
}

export function cdfSvg(result: BenchResult): string | undefined {
  const series = result.runs
    .map((run, index) => ({ run, color: palette[index % palette.length]!, points: cdfPoints(run) }))
    .filter((entry) => entry.points.length > 1);
  if (series.length === 0) return undefined;
  const legendEntries = series.map((entry) => ({
    label: `${shorten(entry.run.label, 30)} c=${entry.run.concurrency}`,
    color: entry.color,
  }));
  const frame: Frame = { width: 640, height: 300, left: 62, right: 16, top: 0, bottom: 44 };
  frame.top = 12 + 18 * legendRowCount(legendEntries, frame.width, frame.left, frame.right);
  frame.height += frame.top - 30;
  // Long tails squash the body of the curve: the x axis stops at the largest p99 seen (or the largest sample).
  const p99s = series.map((entry) => entry.run.p99_ms).filter((value): value is number => typeof value === 'number');
  const largest = Math.max(...series.flatMap((entry) => entry.points.map(([latency]) => latency)));
  const xTicks = niceTicks(p99s.length ? Math.min(largest, Math.max(...p99s) * 1.2) : largest);
  const xTop = xTicks.at(-1)!;
  const x = (latency: number) => frame.left + (plotWidth(frame) * Math.min(latency, xTop)) / xTop;
  const y = (fraction: number) => frame.top + plotHeight(frame) * (1 - fraction);
  const grid = [0, 0.25, 0.5, 0.75, 0.9, 1]
    .map(
      (fraction) =>
        `<line x1="${frame.left}" x2="${frame.width - frame.right}" y1="${y(fraction).toFixed(1)}" y2="${y(fraction).toFixed(1)}" class="grid"/><text x="${frame.left - 6}" y="${(y(fraction) + 4).toFixed(1)}" text-anchor="end" class="tick">${Math.round(fraction * 100)}%</text>`,
    )
    .join('');
  const xAxis = xTicks
    .map(
      (tick) =>
        `<text x="${x(tick).toFixed(1)}" y="${frame.height - frame.bottom + 16}" text-anchor="middle" class="tick">${formatTick(tick)}</text>`,
    )
    .join('');
  const lines = series
    .map((entry) => {
      const path = entry.points
        .map(([latency, fraction], index) => `${index === 0 ? 'M' : 'L'}${x(latency).toFixed(1)},${y(fraction).toFixed(1)}`)
        .join('');
      return `<path d="${path}" fill="none" stroke="${entry.color}" stroke-width="2"><title>${escapeHtml(entry.run.label)}</title></path>`;
    })
    .join('');
  return `${svgOpen(frame, `${result.name}: latency distribution`)}${grid}${xAxis}<text x="${frame.left + plotWidth(frame) / 2}" y="${frame.height - 8}" text-anchor="middle" class="axis-label">latency (ms)</text>${lines}${legend(frame, legendEntries)}</svg>`;
}

/** Throughput against concurrency, one line per series. */
export function throughputSvg(result: BenchResult): string | undefined {
  const runs = result.runs.filter((run) => typeof run.throughput_per_s === 'number');
  if (runs.length === 0) return undefined;
  const seriesNames = [...new Set(runs.map((run) => run.series ?? result.name))];
  const concurrencies = [...new Set(runs.map((run) => run.concurrency))].sort((left, right) => left - right);
  const legendEntries = seriesNames.map((name, index) => ({ label: shorten(name, 48), color: palette[index % palette.length]! }));
  const frame: Frame = { width: Math.max(560, 120 + concurrencies.length * 70), height: 280, left: 62, right: 24, top: 0, bottom: 44 };
  frame.top = 12 + 18 * legendRowCount(legendEntries, frame.width, frame.left, frame.right);
  frame.height += frame.top - 30;
  const ticks = niceTicks(Math.max(...runs.map((run) => run.throughput_per_s as number)));
  const top = ticks.at(-1)!;
  // Concurrency levels are spaced evenly (they usually double), so 1, 2, 4 … 64 all stay readable.
  const x = (concurrency: number) =>
    frame.left +
    (concurrencies.length === 1
      ? plotWidth(frame) / 2
      : (plotWidth(frame) * concurrencies.indexOf(concurrency)) / (concurrencies.length - 1));
  // A negative figure is a measurement bug; the table shows it, the plot keeps it on the axis.
  const y = (throughput: number) => frame.top + plotHeight(frame) * (1 - Math.min(Math.max(throughput, 0), top) / top);
  const xAxis = concurrencies
    .map(
      (concurrency) =>
        `<text x="${x(concurrency).toFixed(1)}" y="${frame.height - frame.bottom + 16}" text-anchor="middle" class="tick">${concurrency}</text>`,
    )
    .join('');
  const unit = runs.find((run) => run.unit)?.unit ?? 'requests';
  const lines = seriesNames
    .map((name, index) => {
      const color = palette[index % palette.length]!;
      const points = runs.filter((run) => (run.series ?? result.name) === name).sort((left, right) => left.concurrency - right.concurrency);
      const path = points
        .map(
          (run, position) =>
            `${position === 0 ? 'M' : 'L'}${x(run.concurrency).toFixed(1)},${y(run.throughput_per_s as number).toFixed(1)}`,
        )
        .join('');
      const dots = points
        .map(
          (run) =>
            `<circle cx="${x(run.concurrency).toFixed(1)}" cy="${y(run.throughput_per_s as number).toFixed(1)}" r="4" fill="${color}"><title>${escapeHtml(`${run.label}: ${formatNumber(run.throughput_per_s)} ${unit}/s at concurrency ${run.concurrency}`)}</title></circle>`,
        )
        .join('');
      return `<path d="${path}" fill="none" stroke="${color}" stroke-width="2"/>${dots}`;
    })
    .join('');
  return `${svgOpen(frame, `${result.name}: throughput by concurrency`)}${yAxis(frame, ticks, `${unit} per second`)}${xAxis}<text x="${frame.left + plotWidth(frame) / 2}" y="${frame.height - 8}" text-anchor="middle" class="axis-label">concurrency</text>${lines}${legend(frame, legendEntries)}</svg>`;
}

/** Each run's promised figure: a bar for what we measured and a marker at the floor (or ceiling). */
export function floorSvg(result: BenchResult): string | undefined {
  const rows = result.runs.flatMap((run) => {
    const outcome = floorOutcome(run);
    return outcome && run.floor ? [{ run, floor: run.floor, outcome }] : [];
  });
  if (rows.length === 0) return undefined;
  const rowHeight = 34;
  const frame: Frame = { width: 680, height: 24 + rows.length * rowHeight, left: 230, right: 150, top: 12, bottom: 12 };
  const body = rows
    .map((row, index) => {
      // Each row has its own scale: a latency ceiling and a throughput floor share no unit.
      const maximum = Math.max(row.floor.value, row.outcome.figure ?? 0) * 1.15 || 1;
      const x = (value: number) => frame.left + (plotWidth(frame) * value) / maximum;
      const yTop = frame.top + index * rowHeight;
      const color = row.outcome.passed === null ? '#bab0ac' : row.outcome.passed ? '#59a14f' : '#e15759';
      const bar =
        row.outcome.figure === null
          ? ''
          : `<rect x="${frame.left}" y="${yTop + 8}" width="${Math.max(1, x(row.outcome.figure) - frame.left).toFixed(1)}" height="16" rx="2" fill="${color}"/>`;
      const marker = `<line x1="${x(row.floor.value).toFixed(1)}" x2="${x(row.floor.value).toFixed(1)}" y1="${yTop + 2}" y2="${yTop + 30}" stroke="#222" stroke-width="2" stroke-dasharray="4 2"/>`;
      const verdict = row.outcome.passed === null ? 'not measured' : row.outcome.passed ? 'pass' : 'FAIL';
      return `<text x="${frame.left - 8}" y="${yTop + 21}" text-anchor="end" class="tick">${escapeHtml(shorten(`${row.run.label} · ${row.floor.metric}`, 36))}</text>${bar}${marker}<text x="${frame.width - frame.right + 8}" y="${yTop + 21}" class="tick"><tspan font-weight="600" fill="${color}">${verdict}</tspan> ${escapeHtml(`${formatNumber(row.outcome.figure)} vs ${formatFloor(row.floor).replace(`${row.floor.metric} `, '')}`)}</text>`;
    })
    .join('');
  return `${svgOpen(frame, `${result.name}: figures against their floors`)}${body}</svg>`;
}

// ---------------------------------------------------------------------------------------------------
// Page

function runTable(result: BenchResult): string {
  const header = ['Run', 'Concurrency', 'Requests', 'Errors', 'p50 ms', 'p90 ms', 'p99 ms', 'Max ms', 'Throughput /s', 'Floor', 'Result'];
  const rows = result.runs.map((run) => {
    const outcome = floorOutcome(run);
    const verdict =
      outcome === undefined
        ? ''
        : outcome.passed === null
          ? '<span class="pill muted">not measured</span>'
          : outcome.passed
            ? '<span class="pill pass">pass</span>'
            : '<span class="pill fail">fail</span>';
    const cells = [
      escapeHtml(run.label),
      String(run.concurrency),
      run.requests === undefined ? '' : String(run.requests),
      run.errors === undefined ? '' : String(run.errors),
      formatNumber(run.p50_ms),
      formatNumber(run.p90_ms),
      formatNumber(run.p99_ms),
      formatNumber(run.max_ms),
      `${formatNumber(run.throughput_per_s)}${run.unit ? ` ${escapeHtml(run.unit)}` : ''}`,
      run.floor
        ? escapeHtml(formatFloor(run.floor)) +
          (run.floor.description ? `<div class="muted small">${escapeHtml(run.floor.description)}</div>` : '')
        : '',
      verdict,
    ];
    return `<tr>${cells.map((cell, index) => `<td${index >= 1 && index <= 8 ? ' class="num"' : ''}>${cell}</td>`).join('')}</tr>`;
  });
  return `<table><thead><tr>${header.map((cell, index) => `<th${index >= 1 && index <= 8 ? ' class="num"' : ''}>${cell}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function figure(svg: string | undefined, caption: string): string {
  return svg ? `<figure>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>` : '';
}

const styles = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;margin:0;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 4px;border-top:1px solid #ddd;padding-top:20px}
.muted{color:#6e6e73}.small{font-size:12px}
table{border-collapse:collapse;width:100%;background:#fff;margin:12px 0;font-size:13px}
th,td{padding:6px 8px;border-bottom:1px solid #e5e5e5;text-align:left;vertical-align:top}th{background:#f2f2f4;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums}
.pill{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600}.pass{background:#e3f4e1;color:#2f7a28}.fail{background:#fde2e2;color:#b3261e}
.notice{background:#fff7e0;border:1px solid #f0d98a;padding:8px 12px;border-radius:6px;margin:12px 0}
.figures{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:8px 0;background:#fff;border:1px solid #e5e5e5;border-radius:6px;padding:8px;overflow-x:auto}
figcaption{font-size:12px;color:#6e6e73;margin-top:4px}
svg .grid{stroke:#ececec;stroke-width:1}svg .tick{font-size:11px;fill:#444}svg .axis-label{font-size:12px;fill:#444}svg .legend{font-size:12px;fill:#333}svg .muted{fill:#888}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dt{color:#6e6e73}dd{margin:0}
`;

export function renderHtml(loaded: LoadedResults, machine: MachineInfo, generatedAt: Date): string {
  const notices: string[] = [];
  for (const name of loaded.missing)
    notices.push(`No results for <b>${escapeHtml(name)}</b> (results/${escapeHtml(name)}.json is missing).`);
  for (const problem of loaded.problems) notices.push(`Could not read <b>${escapeHtml(problem.file)}</b>: ${escapeHtml(problem.reason)}.`);
  for (const benchmark of loaded.runStatus?.benchmarks ?? []) {
    if (benchmark.status !== 'ok')
      notices.push(
        `<b>${escapeHtml(benchmark.script)}</b> ${benchmark.status === 'timeout' ? 'timed out' : `failed (exit ${benchmark.exit_code})`} after ${formatNumber(benchmark.duration_s)} s; its figures below, if any, are from an earlier run.`,
      );
  }
  const summaryRows = loaded.results.flatMap((result) =>
    result.runs.map((run) => {
      const outcome = floorOutcome(run);
      const verdict =
        outcome === undefined
          ? ''
          : outcome.passed === null
            ? '<span class="pill muted">not measured</span>'
            : outcome.passed
              ? '<span class="pill pass">pass</span>'
              : '<span class="pill fail">fail</span>';
      return `<tr><td><a href="#${escapeHtml(result.name)}">${escapeHtml(result.title ?? result.name)}</a></td><td>${escapeHtml(run.label)}</td><td class="num">${run.concurrency}</td><td class="num">${formatNumber(run.p50_ms)}</td><td class="num">${formatNumber(run.p90_ms)}</td><td class="num">${formatNumber(run.p99_ms)}</td><td class="num">${formatNumber(run.throughput_per_s)}${run.unit ? ` ${escapeHtml(run.unit)}` : ''}</td><td>${run.floor ? escapeHtml(formatFloor(run.floor)) : ''}</td><td>${verdict}</td></tr>`;
    }),
  );
  const sections = loaded.results.map((result) => {
    const resultMachine = result.machine ?? machine;
    return `<section id="${escapeHtml(result.name)}"><h2>${escapeHtml(result.title ?? result.name)}</h2>
<div class="muted">${escapeHtml(result.name)} · measured ${escapeHtml(result.date)} · ${escapeHtml(describeMachine(resultMachine))}</div>
${result.description ? `<p>${escapeHtml(result.description)}</p>` : ''}
${runTable(result)}
<div class="figures">
${figure(latencyBarsSvg(result), 'Latency percentiles per run (ms).')}
${figure(cdfSvg(result), 'Latency distribution (CDF) from the recorded samples.')}
${figure(throughputSvg(result), 'Throughput by concurrency.')}
${figure(floorSvg(result), 'Our figure (bar) against its floor or ceiling (dashed line).')}
</div>
${result.notes ? `<p class="muted">${escapeHtml(result.notes)}</p>` : ''}
</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Benchmark report</title><style>${styles}</style></head>
<body><main>
<h1>Benchmark report</h1>
<div class="muted">Generated ${escapeHtml(generatedAt.toISOString())}</div>
<dl><dt>Machine</dt><dd>${escapeHtml(machine.cpu_model)} × ${machine.cpu_count}</dd><dt>Memory</dt><dd>${(machine.memory_bytes / 1024 ** 3).toFixed(1)} GiB</dd><dt>OS</dt><dd>${escapeHtml(machine.os)}</dd><dt>Node</dt><dd>${escapeHtml(machine.node)}</dd></dl>
${notices.map((notice) => `<div class="notice">${notice}</div>`).join('\n')}
${summaryRows.length ? `<table><thead><tr><th>Benchmark</th><th>Run</th><th class="num">Concurrency</th><th class="num">p50 ms</th><th class="num">p90 ms</th><th class="num">p99 ms</th><th class="num">Throughput /s</th><th>Floor</th><th>Result</th></tr></thead><tbody>${summaryRows.join('')}</tbody></table>` : '<p>No benchmark results yet: run <code>npm run bench</code>.</p>'}
${sections.join('\n')}
</main></body></html>
`;
}

export interface WrittenReport {
  htmlFile: string;
  markdownFile: string;
  markdown: string;
  loaded: LoadedResults;
}

export function writeReport(options: { directory?: string; expected?: string[]; machine?: MachineInfo; now?: Date } = {}): WrittenReport {
  const directory = options.directory ?? defaultResultsDirectory;
  const machine = options.machine ?? currentMachine();
  const now = options.now ?? new Date();
  const loaded = loadResults(directory, options.expected ?? definedBenchmarks());
  fs.mkdirSync(directory, { recursive: true });
  const htmlFile = path.join(directory, 'report.html');
  const markdownFile = path.join(directory, 'report.md');
  const markdown = renderMarkdown(loaded, machine, now);
  fs.writeFileSync(htmlFile, renderHtml(loaded, machine, now));
  fs.writeFileSync(markdownFile, markdown);
  return { htmlFile, markdownFile, markdown, loaded };
}

if (require.main === module) {
  const directory = process.argv[2] ? path.resolve(process.argv[2]) : defaultResultsDirectory;
  const report = writeReport({ directory });
  process.stdout.write(`${report.markdown}\n`);
  process.stderr.write(
    `report: ${path.relative(process.cwd(), report.htmlFile)} (${report.loaded.results.length} benchmark${report.loaded.results.length === 1 ? '' : 's'}${report.loaded.missing.length ? `; no results for ${report.loaded.missing.join(', ')}` : ''})\n`,
  );
}
