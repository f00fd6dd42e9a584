import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { provisionTools } from '../../services/devstack/src/provision';
import { repositoryRoot } from '../../services/shared/src/infra/paths';
import { artifactPaths } from '../../deploy/prometheus/generate';

const run = promisify(execFile);

/** One scraped sample: the series (name and labels, as Prometheus keys it) and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads a service's /metrics (Prometheus text) into samples. */
export async function scrape(metricsUrl: string): Promise<Sample[]> {
  const response = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`${metricsUrl}/metrics answered ${response.status}`);
  const samples: Sample[] = [];
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `where`. */
export function total(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

function seriesKey(name: string, labels: Record<string, string>): string {
  const inner = Object.entries(labels)
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  return `${name}{${inner}}`;
}

/**
 * Evaluates the deployed alert rules (deploy/prometheus/rules/mtx.rules.yml) with promtool on what a service
 * exported before and after a fault: each series of `names` holds its `before` value at minute 0 and its `after`
 * value from minute 1 on, as Prometheus would have scraped it, with the `job` and `instance` Prometheus adds.
 * Resolves to promtool's verdict on whether `alert` fires at `atMinutes` with exactly `labels` (and the rule's
 * own annotations), so the check runs the alert's real expression on the service's real samples.
 */
export async function alertFiresOn(options: {
  before: Sample[];
  after: Sample[];
  names: string[];
  target: { job: string; instance: string };
  alert: string;
  severity: 'page' | 'ticket';
  labels: Record<string, string>;
  atMinutes: number;
}): Promise<{ fires: boolean; output: string }> {
  const { promtool } = await provisionTools(() => undefined, ['promtool']);
  const rulesText = fs.readFileSync(path.join(repositoryRoot, artifactPaths.rules), 'utf8');
  const rule = (
    YAML.parse(rulesText) as {
      groups: Array<{ rules: Array<{ alert?: string; labels?: Record<string, string>; annotations?: Record<string, string> }> }>;
    }
  ).groups
    .flatMap((group) => group.rules)
    .find((candidate) => candidate.alert === options.alert && candidate.labels?.severity === options.severity);
  if (!rule) throw new Error(`no ${options.severity} rule of ${options.alert}`);
  const series = new Map<string, { before: number; after: number }>();
  for (const [phase, samples] of [
    ['before', options.before],
    ['after', options.after],
  ] as const) {
    for (const sample of samples.filter((candidate) => options.names.includes(candidate.name))) {
      const key = seriesKey(sample.name, { ...sample.labels, ...options.target });
      const entry = series.get(key) ?? { before: 0, after: 0 };
      entry[phase] = sample.value;
      if (phase === 'before') entry.after = sample.value;
      series.set(key, entry);
    }
  }
  const steps = options.atMinutes + 5;
  const document = {
    rule_files: [path.basename(artifactPaths.rules)],
    evaluation_interval: '1m',
    tests: [
      {
        interval: '1m',
        input_series: [...series].map(([key, { before, after }]) => ({ series: key, values: `${before} ${after}x${steps}` })),
        alert_rule_test: [
          {
            eval_time: `${options.atMinutes}m`,
            alertname: options.alert,
            exp_alerts: [{ exp_labels: { ...rule.labels, ...options.labels }, exp_annotations: rule.annotations ?? {} }],
          },
        ],
      },
    ],
  };
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-fault-alert-'));
  try {
    fs.writeFileSync(path.join(directory, path.basename(artifactPaths.rules)), rulesText);
    fs.writeFileSync(path.join(directory, 'fault.test.yml'), YAML.stringify(document));
    try {
      const { stdout, stderr } = await run(promtool, ['test', 'rules', 'fault.test.yml'], { cwd: directory, timeout: 60_000 });
      return { fires: true, output: stdout + stderr };
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string };
      return { fires: false, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}\n${YAML.stringify(document.tests[0]!.input_series)}` };
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
