import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { instruments, type InstrumentSpec } from '../../services/shared/src/telemetry/instruments';

/**
 * The Prometheus series names the services export, derived from the one registry they create their instruments
 * from: each entry is created on a meter provider with the same Prometheus exporter the services run, given one
 * value, and the exporter's own text is read back. So the names are the exporter's (`_total`, `_bucket`, ...),
 * not a second list kept by hand.
 */
export async function exportedSeriesNames(): Promise<Map<string, InstrumentSpec>> {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  const bySeries = new Map<string, InstrumentSpec>();
  const specs = Object.values(instruments) as InstrumentSpec[];
  for (const spec of specs) {
    const meter = provider.getMeter(spec.meter);
    const options = {
      description: spec.description,
      ...(spec.unit ? { unit: spec.unit } : {}),
      ...(spec.buckets ? { advice: { explicitBucketBoundaries: [...spec.buckets] } } : {}),
    };
    if (spec.kind === 'counter') meter.createCounter(spec.name, options).add(1);
    else if (spec.kind === 'up-down-counter') meter.createUpDownCounter(spec.name, options).add(1);
    else if (spec.kind === 'histogram') meter.createHistogram(spec.name, options).record(1);
    else if (spec.kind === 'gauge') meter.createGauge(spec.name, options).record(1);
    else if (spec.kind === 'observable-counter')
      meter.createObservableCounter(spec.name, options).addCallback((observer) => observer.observe(1));
    else meter.createObservableGauge(spec.name, options).addCallback((observer) => observer.observe(1));
  }
  const { resourceMetrics } = await exporter.collect();
  const text = new PrometheusSerializer().serialize(resourceMetrics);
  await provider.shutdown();
  const longestFirst = [...specs].sort((left, right) => right.name.length - left.name.length);
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const name = line.split(/[{ ]/)[0]!;
    if (name === 'target_info') continue;
    const spec = longestFirst.find((candidate) => name.startsWith(candidate.name.replace(/\./g, '_')));
    if (spec) bySeries.set(name, spec);
  }
  return bySeries;
}

/** PromQL's functions, aggregations and keywords: every other bare word in an expression is a metric name. */
const promqlWords = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'group',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'histogram_quantile',
  'avg_over_time',
  'min_over_time',
  'max_over_time',
  'sum_over_time',
  'count_over_time',
  'last_over_time',
  'absent',
  'absent_over_time',
  'time',
  'vector',
  'scalar',
  'clamp_min',
  'clamp_max',
  'abs',
  'ceil',
  'floor',
  'round',
  'label_replace',
  'timestamp',
  'changes',
  'resets',
  'sort',
  'sort_desc',
  'inf',
  'nan',
]);

/**
 * The metric names an expression reads: what remains once strings, label matchers, ranges, groupings, numbers
 * and PromQL's own words are taken out. Grafana's variables (`$__rate_interval`) are taken out with the ranges.
 */
export function metricNamesIn(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const words = stripped.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return [...new Set(words.filter((word) => !promqlWords.has(word) && !/^[0-9]/.test(word) && !/^e[0-9]*$/.test(word)))];
}
