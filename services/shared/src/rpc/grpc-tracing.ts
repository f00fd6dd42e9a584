import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type * as grpc from '@grpc/grpc-js';

/**
 * gRPC tracing made by hand, in place of the automatic gRPC instrumentation (instrumentation.ts says why): a
 * server span per call, made once per method's name and attributes, and the caller's trace context carried in
 * the call's metadata. A client makes no span for a call that was answered: the server's span, child of the
 * caller's active span, has the method, the status and the time; only a call that no server of ours answered
 * (unreachable, deadline passed) gets a client span, since that one has no server span to say what happened.
 */

const tracerName = 'mtx-grpc';

/** grpc.status.UNKNOWN, for an error that carries no code (grpc-js is only a type import here). */
const unknownStatus = 2;

const metadataGetter: TextMapGetter<grpc.Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

const metadataSetter: TextMapSetter<grpc.Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

/** Writes the W3C trace context of `activeContext` into a call's metadata (nothing when it has no span). */
export function injectTraceMetadata(metadata: grpc.Metadata, activeContext: Context = context.active()): grpc.Metadata {
  propagation.inject(activeContext, metadata, metadataSetter);
  return metadata;
}

/** What a method's spans share, built once per method rather than per call. */
interface MethodSpanShape {
  name: string;
  attributes: Attributes;
}

function methodSpanShape(serviceName: string, method: string): MethodSpanShape {
  return {
    name: `grpc.${serviceName}/${method}`,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': serviceName, 'rpc.method': method },
  };
}

/**
 * A unary service implementation whose every call runs in a server span (`grpc.<service>/<method>`, kind
 * SERVER, rpc.* attributes, the caller's context read from the metadata, the status code, an error status for a
 * failed call): the same span as the automatic instrumentation's, without its per-call wrapping of the call.
 */
export function tracedGrpcImplementation(
  serviceName: string,
  implementation: grpc.UntypedServiceImplementation,
): grpc.UntypedServiceImplementation {
  const tracer = trace.getTracer(tracerName);
  const traced: grpc.UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(implementation)) {
    const shape = methodSpanShape(serviceName, method);
    const unary = handler as (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => void;
    traced[method] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const parent = propagation.extract(ROOT_CONTEXT, call.metadata, metadataGetter);
      const span = tracer.startSpan(shape.name, { kind: SpanKind.SERVER, attributes: shape.attributes }, parent);
      context.with(trace.setSpan(parent, span), () =>
        unary(call, (error, value, trailer, flags) => {
          const code = error ? (error.code ?? unknownStatus) : 0;
          span.setAttribute('rpc.grpc.status_code', code);
          if (error) {
            const described = error as { details?: string; message?: string };
            span.setStatus({ code: SpanStatusCode.ERROR, message: described.details || described.message || `gRPC status ${code}` });
          }
          span.end();
          callback(error, value, trailer, flags);
        }),
      );
    }) as grpc.UntypedHandleCall;
  }
  return traced;
}

/** The client side of one service: its methods' span shapes, made on first use. */
export class GrpcClientTracing {
  private readonly shapes = new Map<string, MethodSpanShape>();
  private readonly tracer = trace.getTracer(tracerName);

  constructor(private readonly serviceName: string) {}

  /**
   * The client span of a call that no server of ours answered, child of `callerContext`'s span and dated from
   * `startedAt` (a performance.now() reading taken before the call). Nothing when the caller is in no recorded
   * span (a probe, a background loop): a trace of its own for it would be noise.
   */
  traceUnanswered(callerContext: Context, method: string, startedAt: number, error: grpc.ServiceError): void {
    if (!trace.getSpan(callerContext)?.isRecording()) return;
    let shape = this.shapes.get(method);
    if (!shape) {
      shape = methodSpanShape(this.serviceName, method);
      this.shapes.set(method, shape);
    }
    const span = this.tracer.startSpan(
      shape.name,
      { kind: SpanKind.CLIENT, startTime: startedAt, attributes: shape.attributes },
      callerContext,
    );
    span.setAttribute('rpc.grpc.status_code', error.code ?? unknownStatus);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.details || error.message });
    // On the same clock as the start (without an end time, a span dated by hand ends on Date.now()'s milliseconds).
    span.end(performance.now());
  }
}
