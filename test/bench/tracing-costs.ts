/**
 * `npx tsx test/bench/tracing-costs.ts`: what each part of tracing costs per span or per hop, in one process on one core,
 * with the SDK's own classes: recording a connector's span per account message (start, attributes, end, handed to
 * a processor), the W3C context written into and read from NATS headers and gRPC metadata (once per hop), and the
 * OTLP serialisation of finished spans (JSON, the services' default, and protobuf) at several export batch sizes.
 * bench:tracing measures the whole stack; this says which part of it is which. CPU time per operation, after one
 * unmeasured pass of each (V8 compiles the code first). Knob: BENCH_TRACING_COSTS_SPANS (default 50,000).
 */
import * as grpc from '@grpc/grpc-js';
import { propagation, ROOT_CONTEXT, SpanKind, trace, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type ReadableSpan, type SpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { extractTraceContext, injectTraceHeaders, natsHeaders } from '@mtx/shared/nats';
import { injectTraceMetadata } from '../../services/shared/src/rpc/grpc-tracing';

const spanCount = Number(process.env.BENCH_TRACING_COSTS_SPANS ?? 50_000);
if (!Number.isInteger(spanCount) || spanCount < 2_048) throw new Error('BENCH_TRACING_COSTS_SPANS must be an integer ≥ 2048');

const finished: ReadableSpan[] = [];
const collector: SpanExporter = {
  export: (spans, done) => {
    for (const span of spans) finished.push(span);
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'connector-mt4' }),
  spanProcessors: [new SimpleSpanProcessor(collector)],
});
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const tracer = provider.getTracer('mtx-connector');
const fanout: Context = trace.setSpan(ROOT_CONTEXT, tracer.startSpan('execution.fanout'));
const accountIds = Array.from({ length: 20 }, (_, index) => `acc_${String(index).padStart(22, '0')}`);
const batchIds = Array.from({ length: 64 }, (_, index) => `bat_${String(index).padStart(22, '0')}`);
// As the connector runtime makes them: one options object, the account, batch and legs set on the span.
const spanOptions = { kind: SpanKind.SERVER };
const legIndexes = [0];
const statuses = ['filled'];
const retcodes = [10009];

function recordConnectorSpans(count: number): void {
  for (let index = 0; index < count; index++) {
    const span = tracer.startSpan('connector.place', spanOptions, fanout);
    span.setAttribute('mtx.account_id', accountIds[index % accountIds.length]!);
    span.setAttribute('mtx.batch_id', batchIds[index % batchIds.length]!);
    span.setAttribute('mtx.leg_index', legIndexes);
    span.setAttribute('mtx.status', statuses);
    span.setAttribute('mtx.retcode', retcodes);
    span.end();
  }
}

/** CPU µs per operation of `work` (which does `operations` of them), after one unmeasured pass. */
function cpuMicrosecondsPer(operations: number, work: () => void): number {
  work();
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / operations;
}

const rows: Array<[string, string]> = [];
const row = (what: string, microseconds: number, unit = 'span') => rows.push([what, `${microseconds.toFixed(2)} µs per ${unit}`]);

row(
  'record a connector span (start, 5 attributes, end, to the processor)',
  cpuMicrosecondsPer(spanCount, () => {
    finished.length = 0;
    recordConnectorSpans(spanCount);
  }),
);

row(
  'inject the context into NATS headers (new headers each)',
  cpuMicrosecondsPer(spanCount, () => {
    for (let index = 0; index < spanCount; index++) injectTraceHeaders(natsHeaders(), fanout);
  }),
  'hop',
);
const headers = injectTraceHeaders(natsHeaders(), fanout);
row(
  'extract the context from NATS headers',
  cpuMicrosecondsPer(spanCount, () => {
    for (let index = 0; index < spanCount; index++) extractTraceContext(headers);
  }),
  'hop',
);
row(
  'inject the context into gRPC metadata (new metadata each)',
  cpuMicrosecondsPer(spanCount, () => {
    for (let index = 0; index < spanCount; index++) injectTraceMetadata(new grpc.Metadata(), fanout);
  }),
  'hop',
);
const metadata = injectTraceMetadata(new grpc.Metadata(), fanout);
const metadataGetter = {
  keys: (carrier: grpc.Metadata) => Object.keys(carrier.getMap()),
  get: (carrier: grpc.Metadata, key: string) => carrier.get(key).map(String),
};
row(
  'extract the context from gRPC metadata',
  cpuMicrosecondsPer(spanCount, () => {
    for (let index = 0; index < spanCount; index++) propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
  }),
  'hop',
);

finished.length = 0;
recordConnectorSpans(spanCount);
const spans = finished.slice();
for (const [name, serializer] of [
  ['JSON', JsonTraceSerializer],
  ['protobuf', ProtobufTraceSerializer],
] as const) {
  for (const batchSize of [256, 1_024, 2_048]) {
    const requests = Math.floor(spans.length / batchSize);
    row(
      `serialise for OTLP/HTTP, ${name}, ${batchSize} spans a request`,
      cpuMicrosecondsPer(requests * batchSize, () => {
        for (let request = 0; request < requests; request++)
          serializer.serializeRequest(spans.slice(request * batchSize, (request + 1) * batchSize));
      }),
    );
  }
  const bytes = serializer.serializeRequest(spans.slice(0, 256))!.length / 256;
  rows.push([`bytes per span, ${name}`, bytes.toFixed(0)]);
}

const width = Math.max(...rows.map(([what]) => what.length));
for (const [what, figure] of rows) process.stdout.write(`[tracing-costs] ${what.padEnd(width)}  ${figure}\n`);
