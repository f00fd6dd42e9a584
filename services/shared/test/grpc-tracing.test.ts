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

describe('untraced group commits', () => {
  it("writes outside the caller's span with tracing suppressed, so the database instrumentation records no span for them", async () => {
    const seen: Array<{ suppressed: boolean; parent: boolean }> = [];
    const collection = (name: string) => ({
      collectionName: name,
      insertMany: async () => {
        seen.push({ suppressed: isTracingSuppressed(context.active()), parent: trace.getSpan(context.active()) !== undefined });
      },
    });
    const caller = tracer.startSpan('POST /v1/orders');
    await context.with(trace.setSpan(ROOT_CONTEXT, caller), async () => {
      await new InsertBatcher(collection('rate_limit_slots'), { untraced: true }).insert({ _id: 'a' });
      await new InsertBatcher(collection('batches')).insert({ _id: 'b' });
    });
    caller.end();
    // Untraced: no parent span either, so the MongoDB instrumentation (requireParentSpan) skips the command outright.
    expect(seen).toEqual([
      { suppressed: true, parent: false },
      { suppressed: false, parent: true },
    ]);
  });
});
