/**
 * Loaded first by every service's main.ts (before fastify, grpc-js, nats or mongodb are required), so that
 * the instrumentations can patch those modules. Honours the standard OTEL_* variables; with no exporter
 * endpoint configured nothing is exported and the SDK costs next to nothing.
 *
 * Every span is kept by default (parent-based, always on). Where the span rate costs more than the traces are
 * worth, the standard sampler variables thin it at the root without breaking a trace, e.g.
 * OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.1 keeps one request in ten, whole
 * (every downstream service follows the gateway's decision carried in traceparent). Exports are uncompressed
 * unless OTEL_EXPORTER_OTLP_COMPRESSION=gzip: gzip saves bytes on the wire at CPU cost in every service.
 *
 * OTEL_TRACES_EXPORTER=none (the standard variable's "no traces") keeps metrics and turns tracing off whole: no
 * tracer provider, no propagator and no instrumentation, so a span, a context hop and a patched driver call all
 * cost nothing. OTEL_SDK_DISABLED=true turns metrics off as well.
 */
import path from 'node:path';
import { createNoopMeter, diag, DiagConsoleLogger, DiagLogLevel, metrics } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { batchSpanProcessorSettings, samplerWithExporter, statementShape, SynchronousContextManager, untracedHttpPaths } from './telemetry';
import { exposeMetrics } from './metrics-exposition';

function serviceNameFromEntryPoint(): string {
  const entry = process.argv[1] ?? '';
  // services/<name>/src/main.ts → <name>: the folder name is the service name (docs/architecture.md, "Code layout").
  const parts = entry.split(path.sep);
  const index = parts.lastIndexOf('services');
  return index >= 0 && parts[index + 1] ? parts[index + 1]! : 'unknown';
}

/** Services that do work per order leg: they run the synchronous context manager (telemetry.ts says why). */
const perLegServices = new Set(['connector-mt4', 'connector-mt5', 'broker-sim']);

/**
 * Services on the trading path (a batch's REST request to its terminals, and the events it announces) run without
 * the MongoDB instrumentation: it hooks every command (the pool's check-out and check-in, a promise chained on each
 * command) to find most of them outside any traced request, and on this path the writes a reader follows are the
 * durable records (the write-ahead, the outcomes), which the store's group commits trace themselves, one span per
 * caller in the caller's trace (InsertBatcher). Elsewhere (wallet, billing, payments: a request's commands are few
 * and each can matter to a reader) every command under a request keeps its span.
 */
const untracedStoreServices = new Set(['gateway', 'execution', 'notifications', 'connector-mt4', 'connector-mt5', 'broker-sim']);

/** What was started: the whole SDK, or only the metrics (OTEL_TRACES_EXPORTER=none). */
let sdk: { shutdown(): Promise<void> } | undefined;

export function startInstrumentation(): { shutdown(): Promise<void> } | undefined {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return sdk;
  if (process.env.OTEL_LOG_LEVEL === 'debug') diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.DEBUG);
  const serviceName = process.env.OTEL_SERVICE_NAME ?? serviceNameFromEntryPoint();
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  // JSON by default: a service exports a few hundred spans at a time, about once a second, and at that pace
  // the SDK's protobuf encoder (generated JavaScript) cost about 1.5 times the CPU per span of JSON (native
  // JSON.stringify), for 2.5 times fewer bytes (390 against 1,000 per span). Spans leave the machine, CPU does
  // not; OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf picks protobuf where bandwidth is the scarcer.
  const protocol = process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json';

  let spanExporter: SpanExporter | undefined;
  let metricExporter: PushMetricExporter | undefined;
  const tracesOff = process.env.OTEL_TRACES_EXPORTER === 'none';
  if (endpoint && !tracesOff) {
    if (protocol === 'http/json') {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
      spanExporter = new OTLPTraceExporter();
    } else {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
      spanExporter = new OTLPTraceExporter();
    }
  }
  if (endpoint) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { OTLPMetricExporter } =
      require('@opentelemetry/exporter-metrics-otlp-http') as typeof import('@opentelemetry/exporter-metrics-otlp-http');
    metricExporter = new OTLPMetricExporter();
  }

  const metricReaders: IMetricReader[] = [];
  if (metricExporter)
    metricReaders.push(
      new PeriodicExportingMetricReader({
        exporter: metricExporter,
        exportIntervalMillis: Number(process.env.OTEL_METRIC_EXPORT_INTERVAL ?? 10_000),
      }),
    );
  if (process.env.PROMETHEUS_METRICS === 'true' || (process.env.PROMETHEUS_METRICS !== 'false' && serviceName === 'gateway')) {
    // Served at /metrics by the operations listener (METRICS_PORT, operations-listener.ts), not the API port:
    // its text names the host, the process id and the command line.
    const prometheus = new PrometheusExporter({ preventServerStart: true });
    exposeMetrics((request, response) => prometheus.getMetricsRequestHandler(request, response));
    metricReaders.push(prometheus);
  }
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName });
  if (tracesOff) {
    const meterProvider = new MeterProvider({ resource, readers: metricReaders });
    metrics.setGlobalMeterProvider(meterProvider);
    sdk = meterProvider;
    return sdk;
  }

  const httpInstrumentation = new HttpInstrumentation({
    // Health probes would drown the traces an SRE cares about.
    ignoreIncomingRequestHook: (request) => untracedHttpPaths.has(request.url ?? ''),
    // Our outgoing HTTP calls go through fetch (undici), which this instrumentation does not see; what it would
    // wrap is the OTLP exporters' own requests, each one only to find tracing suppressed.
    disableOutgoingRequestInstrumentation: true,
  });
  const entryName = serviceNameFromEntryPoint();
  const mongodb = untracedStoreServices.has(entryName)
    ? undefined
    : new MongoDBInstrumentation({
        // A command outside any request (reconciliation sweeps, background flushes) would be a trace of its own.
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        dbStatementSerializer: statementShape,
      });
  const perLeg = perLegServices.has(entryName);
  const nodeSdk = new NodeSDK({
    resource,
    ...(perLeg ? { contextManager: new SynchronousContextManager() } : {}),
    // W3C trace context only, unless OTEL_PROPAGATORS says otherwise: the SDK's default adds the baggage
    // propagator, which no service reads, and every hop (a NATS request and a gRPC call per leg) would pay for
    // looking for a baggage header and composing the two.
    ...(process.env.OTEL_PROPAGATORS ? {} : { textMapPropagator: new W3CTraceContextPropagator() }),
    ...(spanExporter
      ? { spanProcessors: [new BatchSpanProcessor(spanExporter, batchSpanProcessorSettings())], sampler: samplerWithExporter() }
      : // No span processor: the SDK registers no tracer at all, so nothing is recorded and no ids are made (a
        // caller's traceparent still passes through to the next hop); metrics are unaffected.
        { spanProcessors: [] }),
    // Without an endpoint the SDK would default to exporting every pino line as an OTLP log record to
    // localhost:4318: wasted work per line, and a shutdown that waits ~10 s for the failed export.
    ...(endpoint ? {} : { logRecordProcessors: [] }),
    metricReaders,
    instrumentations: [
      httpInstrumentation,
      // No gRPC instrumentation: every server and client of ours is made by startGrpcServer and createUnaryClient,
      // which trace by hand (rpc/grpc-tracing.ts): a server span per call and the caller's context in the
      // metadata, with no client span for a call that was answered (the server's span says what it did; a client
      // span would repeat it one level up, at a span per call) and none of the instrumentation's per-call work
      // (wrapping every call and callback, parsing the channel's address into attributes).
      ...(mongodb ? [mongodb] : []),
      // createLogger's own mixin writes trace_id and span_id; the instrumentation's would do it a second time.
      new PinoInstrumentation({ disableLogCorrelation: true }),
    ],
  });
  nodeSdk.start();
  sdk = nodeSdk;
  // The driver instrumentation counts connections in use on every session check-out and check-in (three
  // counter updates per command, each hashing its attributes); we alert on none of it, so it gets no meter.
  mongodb?.setMeterProvider({ getMeter: () => createNoopMeter() });
  // The HTTP server duration histogram would repeat mtx.gateway.request.duration (by route, method and status,
  // recorded by the gateway itself) at one more attribute hash per request.
  httpInstrumentation.setMeterProvider({ getMeter: () => createNoopMeter() });
  return sdk;
}

export async function shutdownInstrumentation(): Promise<void> {
  if (!sdk) return;
  const current = sdk;
  sdk = undefined;
  // Flushing is worth a moment, not a stalled exit: an unreachable collector would otherwise hold the
  // process for the exporters' own timeouts (about 10 s) after SIGTERM.
  const flushDeadlineMs = Number(process.env.OTEL_SHUTDOWN_DEADLINE_MS ?? 2_000);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    current.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, flushDeadlineMs))),
  ]);
  clearTimeout(timer);
}

startInstrumentation();
