/**
 * The alert rules, the SLOs and the dashboards against the real tools and the real metric names: promtool (the
 * pinned build `npm test` provisions) checks the rule file and runs its unit tests (each alert fires on a series
 * made to fire it and stays quiet on one that must not), the compose rule file and the Kubernetes PrometheusRule
 * hold the same groups, the generated files are current, every expression names only metrics the services
 * export, and every alert's runbook is there.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { provisionTools } from '../../services/devstack/src/provision';
import { repositoryRoot } from '../../services/shared/src/infra/paths';
import { artifactPaths, generatedArtifacts, ruleGroups } from '../../deploy/prometheus/generate';
import { slos, symptomAlerts } from '../../deploy/prometheus/slos';
import { exportedSeriesNames, metricNamesIn } from './exported-metrics';

const run = promisify(execFile);
let promtool = '';
let exported: Map<string, unknown>;

interface RuleGroup {
  name: string;
  rules: Array<{ record?: string; alert?: string; expr: string; labels?: Record<string, string>; annotations?: Record<string, string> }>;
}

function readYaml<T>(relative: string): T {
  return YAML.parse(fs.readFileSync(path.join(repositoryRoot, relative), 'utf8')) as T;
}

async function promtoolRun(args: string[], cwd = repositoryRoot): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(promtool, args, { cwd, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failure.code === 'number' ? failure.code : 1, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

beforeAll(async () => {
  // Never skipped: a clean clone builds the pinned promtool here, as `npm test`'s provision step does.
  ({ promtool } = await provisionTools(() => undefined, ['promtool']));
  exported = await exportedSeriesNames();
}, 30 * 60_000);

describe('promtool', () => {
  it('checks the rule file: valid PromQL, no duplicate rules', async () => {
    const { code, output } = await promtoolRun(['check', 'rules', artifactPaths.rules]);
    expect(output).toContain('SUCCESS');
    expect(code, output).toBe(0);
  });

  it("passes the rule file's unit tests: every alert fires on its fault and stays quiet without it", async () => {
    const { code, output } = await promtoolRun(['test', 'rules', artifactPaths.rulesTest]);
    expect(code, output).toBe(0);
    expect(output).toContain('SUCCESS');
  }, 240_000);

  it('fails a unit test that expects an alert the series do not cause (the tests are really evaluated)', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-rules-'));
    try {
      const document = readYaml<{
        rule_files: string[];
        tests: Array<{ name: string; alert_rule_test: Array<{ exp_alerts: unknown[] }> }>;
      }>(artifactPaths.rulesTest);
      const quiet = document.tests.filter((test) => test.name.endsWith('stays quiet')).slice(0, 1);
      expect(quiet).toHaveLength(1);
      quiet[0]!.alert_rule_test[0]!.exp_alerts = [{ exp_labels: { severity: 'page' } }];
      fs.copyFileSync(path.join(repositoryRoot, artifactPaths.rules), path.join(directory, path.basename(artifactPaths.rules)));
      fs.writeFileSync(path.join(directory, 'inverted.test.yml'), YAML.stringify({ ...document, tests: quiet }));
      const { code, output } = await promtoolRun(['test', 'rules', 'inverted.test.yml'], directory);
      expect(code).not.toBe(0);
      expect(output).toContain('FAILED');
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it("checks compose's Prometheus configuration with the rule file it loads", async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-prometheus-'));
    try {
      const config = readYaml<{ rule_files: string[] }>('deploy/prometheus/prometheus.yml');
      expect(config.rule_files).toEqual([`/etc/prometheus/rules/${path.basename(artifactPaths.rules)}`]);
      config.rule_files = [path.join(repositoryRoot, artifactPaths.rules)];
      fs.writeFileSync(path.join(directory, 'prometheus.yml'), YAML.stringify(config));
      const { code, output } = await promtoolRun(['check', 'config', path.join(directory, 'prometheus.yml')]);
      expect(code, output).toBe(0);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('one source of truth', () => {
  it('the rule file, its unit tests, the PrometheusRule and the SLO table are what `npm run rules:generate` writes', () => {
    for (const [file, text] of Object.entries(generatedArtifacts()))
      expect(fs.readFileSync(path.join(repositoryRoot, file), 'utf8'), `${file} is stale: run npm run rules:generate`).toBe(text);
  });

  it('the PrometheusRule for the kustomize overlays holds exactly the groups of the compose rule file', () => {
    const plain = readYaml<{ groups: RuleGroup[] }>(artifactPaths.rules);
    const resource = readYaml<{ apiVersion: string; kind: string; spec: { groups: RuleGroup[] } }>(artifactPaths.prometheusRule);
    expect(resource.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(resource.kind).toBe('PrometheusRule');
    expect(resource.spec.groups).toEqual(plain.groups);
    const kustomization = readYaml<{ resources: string[] }>('deploy/k8s/monitoring/kustomization.yaml');
    expect(kustomization.resources).toContain(path.basename(artifactPaths.prometheusRule));
  });

  it('every SLO has recording rules for every window and a page and a ticket burn-rate alert', () => {
    const groups = ruleGroups();
    const rules = groups.flatMap((group) => group.rules);
    for (const slo of slos) {
      for (const window of ['5m', '30m', '1h', '2h', '6h', '1d', '3d'])
        expect(
          rules.some((rule) => rule.record === `slo:${slo.name}:error_ratio_rate${window}`),
          `${slo.name} ${window}`,
        ).toBe(true);
      const alerts = rules.filter((rule) => rule.alert === slo.alert);
      expect(alerts.map((rule) => rule.labels?.severity).sort()).toEqual(['page', 'ticket']);
      const page = alerts.find((rule) => rule.labels?.severity === 'page')!;
      // 14.4 × and 6 × the budget, each over a long and a short window.
      expect(page.expr).toContain(`error_ratio_rate1h > ${Number((14.4 * (1 - slo.target)).toPrecision(6))}`);
      expect(page.expr).toContain(`error_ratio_rate5m > ${Number((14.4 * (1 - slo.target)).toPrecision(6))}`);
      expect(page.expr).toContain(`error_ratio_rate6h > ${Number((6 * (1 - slo.target)).toPrecision(6))}`);
    }
  });
});

describe('every expression names only metrics the services export', () => {
  const recorded = () => new Set(ruleGroups().flatMap((group) => group.rules.flatMap((rule) => (rule.record ? [rule.record] : []))));

  it('derives the exported names from the instrument registry with the real exporter', () => {
    // A histogram exports _bucket, _sum and _count; a counter _total; gauges their own name.
    expect(exported.has('mtx_gateway_request_duration_bucket')).toBe(true);
    expect(exported.has('mtx_execution_leg_outcomes_total')).toBe(true);
    expect(exported.has('mtx_connector_terminals_attached')).toBe(true);
    expect(exported.has('mtx_gateway_request_duration')).toBe(false);
  });

  it('the alert rules and the SLO indicators', () => {
    const known = recorded();
    const unknown: string[] = [];
    for (const group of readYaml<{ groups: RuleGroup[] }>(artifactPaths.rules).groups)
      for (const rule of group.rules)
        for (const name of metricNamesIn(rule.expr))
          if (!exported.has(name) && !known.has(name)) unknown.push(`${rule.record ?? rule.alert}: ${name}`);
    expect(unknown).toEqual([]);
  });

  it('the dashboards: Execution, Money and Delivery', () => {
    const known = recorded();
    const directory = path.join(repositoryRoot, 'deploy/grafana/dashboards');
    const titles: string[] = [];
    const unknown: string[] = [];
    for (const file of fs.readdirSync(directory).filter((name) => name.endsWith('.json'))) {
      const dashboard = JSON.parse(fs.readFileSync(path.join(directory, file), 'utf8')) as {
        uid: string;
        title: string;
        panels: Array<{ id: number; title: string; datasource: { uid: string }; targets: Array<{ expr: string }> }>;
      };
      titles.push(dashboard.title);
      expect(new Set(dashboard.panels.map((panel) => panel.id)).size, file).toBe(dashboard.panels.length);
      for (const panel of dashboard.panels) {
        expect(panel.datasource.uid, `${file} ${panel.title}`).toBe('prometheus');
        expect(panel.targets.length, `${file} ${panel.title}`).toBeGreaterThan(0);
        for (const target of panel.targets)
          for (const name of metricNamesIn(target.expr))
            if (!exported.has(name) && !known.has(name)) unknown.push(`${file} "${panel.title}": ${name}`);
      }
    }
    expect(titles.sort()).toEqual(['Delivery', 'Execution', 'Money']);
    expect(unknown).toEqual([]);
  });

  it('the runbooks and the SLO section of docs/operations.md', () => {
    const known = recorded();
    const operations = fs.readFileSync(path.join(repositoryRoot, 'docs/operations.md'), 'utf8');
    const section = operations.slice(operations.indexOf('## Service levels and alerts'), operations.indexOf('## Customers and keys'));
    const texts = [
      { file: 'docs/operations.md', text: section },
      ...fs.readdirSync(path.join(repositoryRoot, 'docs/runbooks')).map((name) => ({
        file: `docs/runbooks/${name}`,
        text: fs.readFileSync(path.join(repositoryRoot, 'docs/runbooks', name), 'utf8'),
      })),
    ];
    expect(section.length).toBeGreaterThan(1000);
    // A metric's name starts with its service's prefix (`mtx_payments_…`); label names (`mtx_platform`) do not.
    const prefixes = new Set([...exported.keys()].map((name) => `${name.split('_').slice(0, 2).join('_')}_`));
    const unknown = texts.flatMap(({ file, text }) =>
      [...text.matchAll(/\b(mtx_[a-z][a-z_]*|slo:[a-z_]+:[a-z_0-9]+)/g)]
        .map((match) => match[1]!)
        .filter((name) => name.startsWith('slo:') || [...prefixes].some((prefix) => name.startsWith(prefix)))
        .filter((name) => !exported.has(name) && !known.has(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('finds an unexported name (the check is not vacuous)', () => {
    expect(metricNamesIn('sum by (le) (rate(mtx_gateway_request_duraton_bucket{http_route="/v1/orders"}[5m])) > 0.5')).toEqual([
      'mtx_gateway_request_duraton_bucket',
    ]);
  });
});

describe('runbooks', () => {
  const alerts = [...new Set([...slos.map((slo) => slo.alert), ...symptomAlerts.map((alert) => alert.alert)])];

  it("every alert's runbook_url names docs/runbooks/<alert>.md, and that runbook says what, how to confirm, what to do and when it is fixed", () => {
    for (const group of readYaml<{ groups: RuleGroup[] }>(artifactPaths.rules).groups)
      for (const rule of group.rules.filter((candidate) => candidate.alert))
        expect(rule.annotations?.runbook_url, rule.alert).toMatch(new RegExp(`/docs/runbooks/${rule.alert}\\.md$`));
    for (const alert of alerts) {
      const file = path.join(repositoryRoot, 'docs/runbooks', `${alert}.md`);
      expect(fs.existsSync(file), file).toBe(true);
      const text = fs.readFileSync(file, 'utf8');
      expect(text.startsWith(`# ${alert}`), alert).toBe(true);
      for (const heading of ['## What it means', '## Confirm', '## What to do', '## Fixed when'])
        expect(text, `${alert}: ${heading}`).toContain(heading);
    }
    const files = fs.readdirSync(path.join(repositoryRoot, 'docs/runbooks')).filter((name) => name.endsWith('.md') && name !== 'README.md');
    expect(files.map((name) => name.replace(/\.md$/, '')).sort()).toEqual([...alerts].sort());
  });
});

describe('compose runs Prometheus and Grafana with them under the monitoring profile', () => {
  it('mounts the rule file and the dashboards, and every service exports /metrics', () => {
    const compose = YAML.parse(fs.readFileSync(path.join(repositoryRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { profiles?: string[]; volumes?: string[]; environment?: Record<string, string> }>;
    };
    expect(compose.services.prometheus!.profiles).toEqual(['monitoring']);
    expect(compose.services.prometheus!.volumes).toEqual(
      expect.arrayContaining([
        './deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
        './deploy/prometheus/rules:/etc/prometheus/rules:ro',
      ]),
    );
    expect(compose.services.grafana!.volumes).toEqual(
      expect.arrayContaining([
        './deploy/grafana/provisioning:/etc/grafana/provisioning:ro',
        './deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro',
      ]),
    );
    expect(compose.services.wallet!.environment?.PROMETHEUS_METRICS).toBe('true');
    const scrape = readYaml<{ scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }> }>(
      'deploy/prometheus/prometheus.yml',
    );
    const targets = scrape.scrape_configs.flatMap((config) => config.static_configs.flatMap((entry) => entry.targets));
    for (const name of ['gateway', 'wallet', 'payments', 'billing', 'execution', 'notifications', 'connector-mt4', 'connector-mt5'])
      expect(targets, name).toContain(`${name}:${compose.services[name]!.environment?.METRICS_PORT}`);
  });
});
