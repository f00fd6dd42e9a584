import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repositoryRoot = path.resolve(__dirname, '../../..');

/**
 * What a process started with the instrumentation records, by the standard variables: it is loaded before
 * anything else, so each case runs in a process of its own. The probe starts a span, injects its context as a
 * service would into a NATS message, records a counter and reads back what it got.
 */
const probe = `
import '@mtx/shared/instrumentation';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
const span = trace.getTracer('probe').startSpan('probe');
const recording = span.isRecording();
const carrier = {};
propagation.inject(trace.setSpan(context.active(), span), carrier);
span.end();
const counter = metrics.getMeter('probe').createCounter('probe_total');
counter.add(1);
console.log(JSON.stringify({
  recording,
  sampled: (span.spanContext().traceFlags & 1) === 1,
  propagated: 'traceparent' in carrier,
  meterProvider: metrics.getMeterProvider().constructor.name,
}));
process.exit(0);
`;

async function probeWith(environment: Record<string, string>) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
    cwd: path.join(repositoryRoot, 'services/gateway'),
    env: { PATH: process.env.PATH ?? '', OTEL_SERVICE_NAME: 'probe', ...environment },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as {
    recording: boolean;
    sampled: boolean;
    propagated: boolean;
    meterProvider: string;
  };
}

describe('the instrumentation by the standard variables', () => {
  it('traces every span and meters with an exporter endpoint', async () => {
    const seen = await probeWith({ PROMETHEUS_METRICS: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(seen).toEqual({ recording: true, sampled: true, propagated: true, meterProvider: 'MeterProvider' });
  });

  it('registers no tracer without an endpoint, and still meters', async () => {
    const seen = await probeWith({ PROMETHEUS_METRICS: 'true' });
    expect(seen).toEqual({ recording: false, sampled: false, propagated: false, meterProvider: 'MeterProvider' });
  });

  it('keeps the metrics and turns tracing off whole with OTEL_TRACES_EXPORTER=none', async () => {
    const seen = await probeWith({
      PROMETHEUS_METRICS: 'true',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    });
    expect(seen).toEqual({ recording: false, sampled: false, propagated: false, meterProvider: 'MeterProvider' });
  });

  it('records nothing with OTEL_SDK_DISABLED=true', async () => {
    const seen = await probeWith({ OTEL_SDK_DISABLED: 'true' });
    expect(seen.recording).toBe(false);
    expect(seen.propagated).toBe(false);
    expect(seen.meterProvider).not.toBe('MeterProvider');
  });
});
