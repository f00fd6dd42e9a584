import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineRequested, defaultBaselinesDirectory, toBaseline, writeBaselinesFromResults, writeBenchResult } from './baseline';
import { definedBenchmarks, validateResult, type BenchResult } from './report';

/** Baselines from raw runs (the sample runs in test/bench/fixtures), and the committed baselines themselves. */
const fixtures = path.join(__dirname, 'fixtures');
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as BenchResult;
let directory: string;

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-bench-baseline-'));
});
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe('a baseline', () => {
  it('keeps every figure of every run and the machine, and drops the plot series', () => {
    const raw = readJson(path.join(fixtures, 'sample-execution.json'));
    const baseline = toBaseline(raw);
    expect(baseline.machine).toEqual(raw.machine);
    expect(baseline.runs).toHaveLength(raw.runs.length);
    for (const [index, run] of baseline.runs.entries()) {
      const original = raw.runs[index]!;
      expect(run).not.toHaveProperty('samples_ms');
      expect(run).not.toHaveProperty('histogram');
      expect(run.p50_ms).toBe(original.p50_ms);
      expect(run.p99_ms).toBe(original.p99_ms);
      expect(run.throughput_per_s).toBe(original.throughput_per_s);
      expect(run.floor).toEqual(original.floor);
    }
    expect(raw.runs.some((run) => run.samples_ms !== undefined)).toBe(true);
  });

  it('is written beside the raw run only when asked, as a valid result one line per run', () => {
    const raw = readJson(path.join(fixtures, 'sample-wallet.json'));
    const rawFile = path.join(directory, 'results', 'wallet.json');
    const baselines = path.join(directory, 'baselines');
    expect(writeBenchResult(raw, { file: rawFile, baseline: false, baselinesDirectory: baselines })).toEqual([rawFile]);
    expect(fs.existsSync(baselines)).toBe(false);
    const written = writeBenchResult(raw, { file: rawFile, baseline: true, baselinesDirectory: baselines });
    expect(written).toEqual([rawFile, path.join(baselines, 'wallet.json')]);
    expect(readJson(rawFile)).toEqual(raw);
    const text = fs.readFileSync(written[1]!, 'utf8');
    expect(validateResult(JSON.parse(text))).toEqual(toBaseline(raw));
    expect(text.split('\n').filter((line) => line.trimStart().startsWith('{"label"'))).toHaveLength(raw.runs.length);
  });

  it('is made from a results directory, and refuses a benchmark with no raw run', () => {
    const results = path.join(directory, 'from-results');
    fs.mkdirSync(results, { recursive: true });
    fs.copyFileSync(path.join(fixtures, 'sample-execution.json'), path.join(results, 'execution.json'));
    fs.writeFileSync(path.join(results, 'run-all.json'), '{"started_at": "2027-01-01T00:00:00Z", "benchmarks": []}');
    const out = path.join(directory, 'made');
    expect(writeBaselinesFromResults([], results, out)).toEqual([path.join(out, 'execution.json')]);
    expect(() => writeBaselinesFromResults(['wallet'], results, out)).toThrow(/wallet/);
  });

  it('is asked for by --baseline or BENCH_WRITE_BASELINE=1', () => {
    expect(baselineRequested(['node', 'bench', '--baseline'], {})).toBe(true);
    expect(baselineRequested(['node', 'bench'], { BENCH_WRITE_BASELINE: '1' })).toBe(true);
    expect(baselineRequested(['node', 'bench'], {})).toBe(false);
  });
});

describe('the committed baselines', () => {
  it('cover every benchmark, each small, valid and naming its machine', () => {
    const files = fs.readdirSync(defaultBaselinesDirectory).filter((file) => file.endsWith('.json'));
    expect(files.map((file) => file.slice(0, -'.json'.length)).sort()).toEqual([...definedBenchmarks()].sort());
    for (const file of files) {
      const full = path.join(defaultBaselinesDirectory, file);
      expect(fs.statSync(full).size).toBeLessThan(16 * 1024);
      const baseline = validateResult(readJson(full));
      expect(baseline.machine?.cpu_count).toBeGreaterThan(0);
      expect(baseline.machine?.node).toMatch(/^v\d+/);
      expect(baseline.runs.every((run) => run.samples_ms === undefined)).toBe(true);
    }
  });
});
