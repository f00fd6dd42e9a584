import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../src/service/errors';
import { createUnaryClient, startGrpcServer, unaryHandlers, type GrpcServerHandle } from '../src/rpc/grpc';
import { grpcServices } from '../src/rpc/grpc-services';
import { InsertBatcher } from '../src/store/insert-batcher';

// A real tracer in this process: the server and the client below both run in it, so every span they make lands
// here, and the trace context has to cross the call's metadata to connect them.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager().enable();
context.setGlobalContextManager(contextManager);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(provider);

const { protoFile, serviceName } = grpcServices.brokerSim;
let server: GrpcServerHandle;
/** The span the handler ran in, as the handler saw it. */
let handlerSpanId: string | undefined;

beforeAll(async () => {
  server = await startGrpcServer(
    [
      {
        protoFile,
        serviceName,
        implementation: unaryHandlers({
          ListServers: async () => {
            await new Promise((resolve) => setImmediate(resolve));
            handlerSpanId = trace.getActiveSpan()?.spanContext().spanId;
            return { servers: [] };
          },
          GetServerInfo: async () => {
            throw new AppError('not_found', 'no such server');
          },
        }),
      },
    ],
    '127.0.0.1:0',
  );
});

afterAll(async () => {
  await server?.close(100);
  await provider.shutdown();
  contextManager.disable();
  trace.disable();
  propagation.disable();
  context.disable();
});

beforeEach(() => exporter.reset());

const tracer = trace.getTracer('test');

describe('gRPC tracing by hand (no automatic instrumentation)', () => {
  it("continues the caller's trace in a server span the handler runs in, and makes no client span for an answered call", async () => {
    const client = createUnaryClient<any>(protoFile, serviceName, `127.0.0.1:${server.port}`, 2_000);
    try {
      const caller = tracer.startSpan('POST /v1/orders');
      await context.with(trace.setSpan(ROOT_CONTEXT, caller), () => client.call('ListServers', {}));
      caller.end();
      const spans = exporter.getFinishedSpans();
      expect(spans.map((span) => span.name).sort()).toEqual(['POST /v1/orders', `grpc.${serviceName}/ListServers`]);
      const served = spans.find((span) => span.kind === SpanKind.SERVER)!;
      expect(served.spanContext().traceId).toBe(caller.spanContext().traceId);
      expect(served.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(served.attributes).toMatchObject({
        'rpc.system': 'grpc',
        'rpc.service': serviceName,
        'rpc.method': 'ListServers',
        'rpc.grpc.status_code': 0,
      });
      expect(served.status.code).toBe(SpanStatusCode.UNSET);
      // The handler's own work (after an await) runs in the server span: its log lines and database spans join it.
      expect(handlerSpanId).toBe(served.spanContext().spanId);
    } finally {
      client.close();
    }
  });

  it('marks the server span of a refused call as failed, and still makes no client span: the server answered', async () => {
    const client = createUnaryClient<any>(protoFile, serviceName, `127.0.0.1:${server.port}`, 2_000);
    try {
      const caller = tracer.startSpan('GET /v1/servers/:name');
      await expect(
        context.with(trace.setSpan(ROOT_CONTEXT, caller), () => client.call('GetServerInfo', { server: 'Nowhere-Live' })),
      ).rejects.toMatchObject({ code: 'not_found' });
      caller.end();
      const spans = exporter.getFinishedSpans();
      expect(spans.filter((span) => span.kind === SpanKind.CLIENT)).toEqual([]);
      const served = spans.find((span) => span.kind === SpanKind.SERVER)!;
      expect(served.name).toBe(`grpc.${serviceName}/GetServerInfo`);
      expect(served.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(served.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'no such server' });
      expect(served.attributes['rpc.grpc.status_code']).toBe(5);
    } finally {
      client.close();
    }
  });

  it("records a failed client span for a call no server answered, within the caller's trace, and none outside a trace", async () => {
    // A port nothing listens on: the call fails with UNAVAILABLE without reaching a server of ours.
    const unreachable = createUnaryClient<any>(protoFile, serviceName, '127.0.0.1:1', 1_000);
    try {
      await expect(unreachable.call('ListServers', {})).rejects.toMatchObject({ code: 'unavailable' });
      expect(exporter.getFinishedSpans()).toEqual([]);

      const caller = tracer.startSpan('POST /v1/orders');
      await expect(context.with(trace.setSpan(ROOT_CONTEXT, caller), () => unreachable.call('ListServers', {}))).rejects.toMatchObject({
        code: 'unavailable',
      });
      caller.end();
      const [failed, ...others] = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT);
      expect(others).toEqual([]);
      expect(failed!.name).toBe(`grpc.${serviceName}/ListServers`);
      expect(failed!.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
      expect(failed!.attributes).toMatchObject({ 'rpc.method': 'ListServers', 'rpc.grpc.status_code': 14 });
    } finally {
      unreachable.close();
    }
  });
});

describe('group commits in traces', () => {
  const collection = (name: string, seen: Array<{ suppressed: boolean; parent: boolean; documents: number }>, failure?: Error) => ({
    collectionName: name,
    insertMany: async (documents: unknown[]) => {
      seen.push({
        suppressed: isTracingSuppressed(context.active()),
        parent: trace.getSpan(context.active()) !== undefined,
        documents: documents.length,
      });
      if (failure) throw failure;
    },
  });

  it("makes a span per caller in the caller's trace, and runs the shared command itself untraced", async () => {
    const seen: Array<{ suppressed: boolean; parent: boolean; documents: number }> = [];
    const batcher = new InsertBatcher(collection('batches', seen));
    const callers = [tracer.startSpan('POST /v1/orders'), tracer.startSpan('POST /v1/orders')];
    // Both callers' inserts join one command (same turn of the event loop).
    await Promise.all(
      callers.map((caller, index) => context.with(trace.setSpan(ROOT_CONTEXT, caller), () => batcher.insert({ _id: `b${index}` }))),
    );
    for (const caller of callers) caller.end();
    // One command for both, with tracing suppressed and no parent: a database instrumentation records nothing for it.
    expect(seen).toEqual([{ suppressed: true, parent: false, documents: 2 }]);
    const inserts = exporter.getFinishedSpans().filter((span) => span.name === 'insert batches');
    expect(inserts.map((span) => span.parentSpanContext?.spanId).sort()).toEqual(
      callers.map((caller) => caller.spanContext().spanId).sort(),
    );
    for (const insert of inserts) {
      expect(insert.kind).toBe(SpanKind.CLIENT);
      expect(insert.spanContext().traceId).toBe(
        callers.find((caller) => caller.spanContext().spanId === insert.parentSpanContext?.spanId)!.spanContext().traceId,
      );
      expect(insert.attributes).toEqual({
        'db.system.name': 'mongodb',
        'db.operation.name': 'insert',
        'db.collection.name': 'batches',
        'db.operation.batch.size': 2,
      });
      expect(insert.status.code).toBe(SpanStatusCode.UNSET);
    }
  });

  it('makes no span for an untraced writer, nor for a caller outside any trace', async () => {
    const seen: Array<{ suppressed: boolean; parent: boolean; documents: number }> = [];
    const caller = tracer.startSpan('POST /v1/orders');
    await context.with(trace.setSpan(ROOT_CONTEXT, caller), () =>
      new InsertBatcher(collection('rate_limit_slots', seen), { untraced: true }).insert({ _id: 'a' }),
    );
    caller.end();
    await context.with(ROOT_CONTEXT, () => new InsertBatcher(collection('batches', seen)).insert({ _id: 'b' }));
    expect(seen).toEqual([
      { suppressed: true, parent: false, documents: 1 },
      { suppressed: true, parent: false, documents: 1 },
    ]);
    expect(exporter.getFinishedSpans().filter((span) => span.name.startsWith('insert '))).toEqual([]);
  });

  it("marks a caller's span failed when the store did not take its write", async () => {
    const seen: Array<{ suppressed: boolean; parent: boolean; documents: number }> = [];
    const caller = tracer.startSpan('POST /v1/orders');
    const written = context.with(trace.setSpan(ROOT_CONTEXT, caller), () =>
      new InsertBatcher(collection('outcomes', seen, new Error('store unreachable'))).insert({ _id: 'c' }),
    );
    await expect(written).rejects.toThrow('store unreachable');
    caller.end();
    const [insert] = exporter.getFinishedSpans().filter((span) => span.name === 'insert outcomes');
    expect(insert?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'store unreachable' });
  });
});
