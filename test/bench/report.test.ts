import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cdfPoints,
  floorOutcome,
  niceTicks,
  p99BySecond,
  throughputSvg,
  validateResult,
  writeReport,
  type BenchResult,
  type MachineInfo,
  type WrittenReport,
} from './report';

/** The report generator on sample result files (test/bench/fixtures), a broken file, and missing benchmarks. */
const fixtures = path.join(__dirname, 'fixtures');
const machine: MachineInfo = { cpu_model: 'Report Test CPU', cpu_count: 2, memory_bytes: 4 * 1024 ** 3, os: 'linux test', node: 'v20.0.0' };
const generatedAt = new Date('2027-03-02T08:00:00.000Z');
let directory: string;
let report: WrittenReport;
let html: string;
const execution = JSON.parse(fs.readFileSync(path.join(fixtures, 'sample-execution.json'), 'utf8')) as BenchResult;

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-bench-report-'));
  fs.copyFileSync(path.join(fixtures, 'sample-execution.json'), path.join(directory, 'execution.json'));
  fs.copyFileSync(path.join(fixtures, 'sample-wallet.json'), path.join(directory, 'wallet.json'));
  fs.writeFileSync(path.join(directory, 'broken.json'), '{"name": "broken", "runs": ');
  fs.writeFileSync(
    path.join(directory, 'run-all.json'),
    JSON.stringify({
      started_at: '2027-03-01T09:59:00.000Z',
      benchmarks: [{ name: 'billing', script: 'bench:billing', status: 'failed', exit_code: 2, duration_s: 4.2 }],
    }),
  );
  report = writeReport({ directory, expected: ['execution', 'wallet', 'billing', 'tracing'], machine, now: generatedAt });
  html = fs.readFileSync(report.htmlFile, 'utf8');
});

afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe('loading results', () => {
  it('reads every valid file, reports unreadable ones with the reason, and lists benchmarks without results', () => {
    expect(report.loaded.results.map((result) => result.name).sort()).toEqual(['execution', 'wallet']);
    expect(report.loaded.problems).toEqual([{ file: 'broken.json', reason: expect.stringContaining('JSON') }]);
    expect(report.loaded.missing).toEqual(['billing', 'tracing']);
    expect(report.loaded.runStatus?.benchmarks[0]?.status).toBe('failed');
  });

  it('rejects files that do not follow the documented shape, naming the field', () => {
    expect(() => validateResult({ name: 'x', date: 'yesterday', runs: [] })).toThrow(/date/);
    expect(() =>
      validateResult({
        name: 'x',
        date: '2027-01-01T00:00:00Z',
        runs: [{ label: 'a', concurrency: 1, p50_ms: '3', p90_ms: 1, p99_ms: 1, throughput_per_s: 1 }],
      }),
    ).toThrow(/runs\[0\]\.p50_ms/);
    expect(() =>
      validateResult({
        name: 'x',
        date: '2027-01-01T00:00:00Z',
        runs: [
          {
            label: 'a',
            concurrency: 1,
            p50_ms: 1,
            p90_ms: 1,
            p99_ms: 1,
            throughput_per_s: 1,
            floor: { metric: 'p99_ms', value: 1, comparison: 'below' },
          },
        ],
      }),
    ).toThrow(/floor/);
    expect(validateResult(execution).runs).toHaveLength(4);
  });
});

describe('floors', () => {
  it('passes a latency at or under its ceiling and a throughput at or over its floor', () => {
    const [first, , loaded, twenty] = execution.runs;
    expect(floorOutcome(first!)).toEqual({ figure: 31.5, passed: true });
    expect(floorOutcome(loaded!)).toEqual({ figure: 290, passed: false });
    expect(floorOutcome(twenty!)).toEqual({ figure: 38.5, passed: true });
    expect(floorOutcome({ ...first!, p99_ms: null })).toEqual({ figure: null, passed: null });
    expect(floorOutcome(execution.runs[1]!)).toBeUndefined();
  });

  it('passes a two-figure target only when both hold in the same run, and reports the first figure', () => {
    const both = {
      metric: 'throughput_per_s',
      value: 1000,
      comparison: 'at_least',
      and: { metric: 'p99_ms', value: 20, comparison: 'at_most' },
    } as const;
    const run = (throughput: number, p99: number | null) => ({
      label: 'credits',
      concurrency: 16,
      p50_ms: 5,
      p90_ms: 9,
      p99_ms: p99,
      throughput_per_s: throughput,
      floor: both,
    });
    expect(floorOutcome(run(1200, 15))).toEqual({ figure: 1200, passed: true });
    expect(floorOutcome(run(1200, 103))).toEqual({ figure: 1200, passed: false });
    expect(floorOutcome(run(198, 9.5))).toEqual({ figure: 198, passed: false });
    expect(floorOutcome(run(1200, null))).toEqual({ figure: 1200, passed: null });
    expect(() =>
      validateResult({
        name: 'x',
        date: '2027-01-01T00:00:00Z',
        runs: [{ ...run(1, 1), floor: { ...both, and: { metric: 'p99_ms', value: '20', comparison: 'at_most' } } }],
      }),
    ).toThrow(/floor\.and/);
  });
});

describe('p99 by second', () => {
  it("groups answers by the second they were due in, keeps empty seconds, and takes each second's nearest-rank p99", () => {
    // Second 0: 100 answers of 1..100 ms; second 1: none; second 2: one stalled answer.
    const timeline: Array<[number, number]> = Array.from({ length: 100 }, (_, index) => [index * 9.9, index + 1]);
    timeline.push([2_500, 480.04]);
    const bySecond = p99BySecond(timeline);
    expect(bySecond).toHaveLength(3);
    expect(bySecond[0]).toBe(99);
    expect(bySecond[1]).toBeNull();
    expect(bySecond[2]).toBe(480);
  });
});

describe('the HTML page', () => {
  it('is self-contained: no scripts, stylesheets, images or fonts from anywhere', () => {
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).toMatch(/^<!doctype html>/);
  });

  it('shows machine, date, every run, pass and fail, and explains what is missing', () => {
    expect(html).toContain('Report Test CPU × 2');
    expect(html).toContain('4.0 GiB');
    expect(html).toContain(generatedAt.toISOString());
    expect(html).toContain('Sample CPU 3000');
    for (const run of execution.runs) expect(html).toContain(run.label);
    expect(html.match(/class="pill fail"/g)?.length).toBe(2);
    expect(html.match(/class="pill pass"/g)?.length).toBe(4);
    expect(html).toContain('No results for <b>billing</b>');
    expect(html).toContain('No results for <b>tracing</b>');
    expect(html).toContain('Could not read <b>broken.json</b>');
    expect(html).toContain('<b>bench:billing</b> failed (exit 2)');
  });

  it('draws latency bars, a CDF, throughput by concurrency and floors as inline SVG', () => {
    const svgs = html.match(/<svg [^>]*>[\s\S]*?<\/svg>/g) ?? [];
    const titles = svgs.map((svg) => /<title>([^<]*)<\/title>/.exec(svg)?.[1]);
    expect(titles).toEqual([
      'execution: latency percentiles',
      'execution: latency distribution',
      'execution: throughput by concurrency',
      'execution: figures against their floors',
      'wallet: latency percentiles',
    ]);
    // Three bars per run in the percentile plot, a marker per floor.
    expect(svgs[0]!.match(/<rect [^>]*fill="#(4e79a7|f28e2b|e15759)"><title>/g)?.length).toBe(12);
    expect(svgs[3]!.match(/stroke-dasharray/g)?.length).toBe(3);
    // The CDF has one curve per run that has samples or a histogram.
    expect(svgs[1]!.match(/<path /g)?.length).toBe(3);
  });

  it('escapes text from the result files', () => {
    expect(html).toContain('credit &lt;script&gt;');
    expect(html).not.toContain('credit <script>');
  });
});

describe('plot helpers', () => {
  it('picks round axis ticks that cover the maximum', () => {
    expect(niceTicks(37)).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(0.42)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(niceTicks(290).at(-1)).toBeGreaterThanOrEqual(290);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it('builds cumulative curves from samples and from per-bucket counts', () => {
    const fromSamples = cdfPoints({ ...execution.runs[0]!, samples_ms: [5, 1, 3, 2, 4] });
    expect(fromSamples).toEqual([
      [1, 0.2],
      [2, 0.4],
      [3, 0.6],
      [4, 0.8],
      [5, 1],
      [5, 1],
    ]);
    const fromBuckets = cdfPoints(execution.runs[2]!);
    expect(fromBuckets).toEqual([
      [50, 300 / 1600],
      [100, 1200 / 1600],
      [200, 1550 / 1600],
      [400, 1],
    ]);
    const cumulative = cdfPoints({
      ...execution.runs[2]!,
      cumulative: true,
      histogram: [
        { le_ms: 10, count: 5 },
        { le_ms: 20, count: 10 },
      ],
    });
    expect(cumulative).toEqual([
      [10, 0.5],
      [20, 1],
    ]);
    const large = cdfPoints({ ...execution.runs[0]!, samples_ms: Array.from({ length: 10_000 }, (_, index) => index) });
    expect(large.length).toBeLessThanOrEqual(202);
    for (let index = 1; index < large.length; index++) expect(large[index]![1]).toBeGreaterThanOrEqual(large[index - 1]![1]);
  });

  it('draws one throughput line per series across the concurrency levels', () => {
    const svg = throughputSvg(execution)!;
    expect(svg.match(/<path /g)?.length).toBe(2);
    expect(svg.match(/<circle /g)?.length).toBe(4);
    for (const level of ['>1<', '>4<', '>16<']) expect(svg).toContain(level);
  });
});

describe('the Markdown table', () => {
  it('has one row per run and per missing benchmark, the floor verdicts, and the date and machine', () => {
    const lines = report.markdown.trim().split('\n');
    expect(lines[0]).toBe('| Benchmark | Run | Concurrency | p50 ms | p90 ms | p99 ms | Throughput /s | Floor | Result |');
    const rows = lines.filter((line) => line.startsWith('| ') && !line.startsWith('| Benchmark'));
    expect(rows).toHaveLength(5 + 2);
    expect(rows.filter((row) => row.includes('**FAIL**'))).toHaveLength(1);
    expect(rows.find((row) => row.includes('| 16 |'))).toContain('| 80.5 | 140 | 290 | 190 batches | p99_ms ≤ 250 | **FAIL** |');
    expect(rows.find((row) => row.startsWith('| wallet'))).toContain('| 3.20 | – | 12.0 | – |');
    expect(report.markdown).toContain('measured 2027-03-01 on Sample CPU 3000, 2 CPUs, 8.0 GiB RAM');
    expect(report.markdown).toContain('Report Test CPU');
    expect(fs.readFileSync(report.markdownFile, 'utf8')).toBe(report.markdown);
  });
});
