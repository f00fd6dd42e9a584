import * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { AppError, isErrorCode, type ErrorCode } from '../service/errors';
import '../patches/http2-stream-release';
import { refusedStatements } from '../store/bulk-write';
import { grpcServiceClient } from './proto';
import type { Logger } from '../telemetry/logger';
import { context } from '@opentelemetry/api';
import { GrpcClientTracing, injectTraceMetadata, tracedGrpcImplementation } from './grpc-tracing';

export { grpc };

/**
 * grpc-js keeps channelz, its introspection registry, on by default: counters, trace events and a registry entry
 * for every channel, subchannel, server and socket, updated on every call. Nothing here serves the channelz
 * service, so nobody could read them; off, a unary call costs client and server about 10 % less CPU (148 against
 * 165 µs per loopback health check at concurrency 32, nine alternated runs).
 */
const withoutChannelz = { 'grpc.enable_channelz': 0 } as const;

/** How every client of ours dials: keepalive, no retries (callers decide), and fast reconnects after a restart. */
export const clientChannelOptions: grpc.ChannelOptions = {
  ...withoutChannelz,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.enable_retries': 0,
  // Reconnect fast after a backend restart; the default backoff grows to two minutes.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

const errorCodeKey = 'x-error-code';
// Binary (`-bin`) values: a text metadata value must be printable ASCII, and a parameter or detail may quote what
// the caller sent (a symbol named "Ë"). Read under the text keys too, which replicas of an older build still send.
const errorDetailsKey = 'x-error-details-bin';
const errorParamKey = 'x-error-param-bin';
const legacyErrorDetailsKey = 'x-error-details';
const legacyErrorParamKey = 'x-error-param';

/** A metadata value as text, whether it came binary (UTF-8) or as an ASCII string. */
function metadataText(metadata: grpc.Metadata, key: string, legacyKey: string): string | undefined {
  const value = metadata.get(key)[0] ?? metadata.get(legacyKey)[0];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.toString('utf8');
}

const grpcStatusForCode: Partial<Record<ErrorCode, grpc.status>> = {
  invalid_request: grpc.status.INVALID_ARGUMENT,
  unknown_field: grpc.status.INVALID_ARGUMENT,
  amount_out_of_range: grpc.status.INVALID_ARGUMENT,
  balance_cap_exceeded: grpc.status.FAILED_PRECONDITION,
  too_many_legs: grpc.status.INVALID_ARGUMENT,
  too_many_accounts: grpc.status.INVALID_ARGUMENT,
  unknown_account: grpc.status.INVALID_ARGUMENT,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  insufficient_balance: grpc.status.FAILED_PRECONDITION,
  forbidden: grpc.status.PERMISSION_DENIED,
  not_found: grpc.status.NOT_FOUND,
  idempotency_key_reused: grpc.status.ALREADY_EXISTS,
  idempotency_key_in_progress: grpc.status.ABORTED,
  accounts_unreachable: grpc.status.FAILED_PRECONDITION,
  conflict: grpc.status.ABORTED,
  rate_limited: grpc.status.RESOURCE_EXHAUSTED,
  unavailable: grpc.status.UNAVAILABLE,
  internal: grpc.status.INTERNAL,
};

/** Turns anything a handler threw into a gRPC error that still carries our public error code. */
export function toGrpcError(error: unknown, logger?: Logger): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  if (error instanceof AppError) {
    metadata.set(errorCodeKey, error.code);
    if (error.param !== undefined) metadata.set(errorParamKey, Buffer.from(error.param, 'utf8'));
    if (error.details !== undefined) metadata.set(errorDetailsKey, Buffer.from(JSON.stringify(error.details), 'utf8'));
    return { code: grpcStatusForCode[error.code] ?? grpc.status.UNKNOWN, details: error.message, metadata };
  }
  if (isStoreUnavailable(error)) {
    metadata.set(errorCodeKey, 'unavailable');
    return { code: grpc.status.UNAVAILABLE, details: 'storage is unavailable', metadata };
  }
  logger?.error({ err: error }, 'unhandled error in gRPC handler');
  metadata.set(errorCodeKey, 'internal');
  return { code: grpc.status.INTERNAL, details: 'internal error', metadata };
}

/** A store that is down is a retriable condition (503), never an internal error (500). */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const name = error.name;
  return (
    name === 'MongoServerSelectionError' ||
    name === 'MongoNetworkError' ||
    name === 'MongoNetworkTimeoutError' ||
    name === 'MongoTopologyClosedError' ||
    name === 'MongoNotConnectedError' ||
    name === 'MongoPoolClearedError' ||
    name === 'MongoOperationTimeoutError' ||
    // The driver sometimes surfaces the raw socket error of a store that just died (writing to a half-closed
    // socket), not a MongoNetworkError.
    ['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ERR_STREAM_WRITE_AFTER_END'].includes(
      String((error as NodeJS.ErrnoException).code),
    ) ||
    /connection (.* )?closed|ECONNREFUSED|ECONNRESET|socket has been ended|socket hang up/.test(error.message) ||
    // A batched write whose command failed as a whole (a lost connection mid-command) comes as a bulk-write error
    // that names no refused document: nothing is known to be stored, and the caller retries idempotently.
    (name === 'MongoBulkWriteError' && refusedStatements(error, Number.MAX_SAFE_INTEGER) === null)
  );
}

/** Turns a gRPC client error back into an AppError, so the gateway can answer with the original code. */
export function fromGrpcError(error: unknown): AppError {
  const serviceError = error as grpc.ServiceError;
  const code = serviceError?.metadata?.get(errorCodeKey)[0];
  if (isErrorCode(code)) {
    const detailsRaw = metadataText(serviceError.metadata, errorDetailsKey, legacyErrorDetailsKey);
    const param = metadataText(serviceError.metadata, errorParamKey, legacyErrorParamKey);
    const options: { param?: string; details?: Record<string, unknown> } = {};
    if (typeof param === 'string') options.param = param;
    if (typeof detailsRaw === 'string') options.details = JSON.parse(detailsRaw) as Record<string, unknown>;
    return new AppError(code, serviceError.details || code, options);
  }
  if (
    serviceError?.code === grpc.status.UNAVAILABLE ||
    serviceError?.code === grpc.status.DEADLINE_EXCEEDED ||
    serviceError?.code === grpc.status.CANCELLED
  ) {
    return new AppError('unavailable', 'a backing service did not answer in time; retry', { cause: error });
  }
  return new AppError('internal', 'internal error', { cause: error });
}

type RequestOutputOf<Method> =
  Method extends MethodDefinition<infer _Request, infer _Response, infer RequestOutput, infer _ResponseOutput> ? RequestOutput : never;
// Read off the serializer: inferring it from MethodDefinition's contravariant slots yields never.
type ResponseInputOf<Method> = Method extends { responseSerialize: (value: infer Response) => Buffer } ? Response : never;

/**
 * Handlers of a service, typed by its definition generated from proto/: each takes the decoded request and
 * answers the response message. Untyped (no definition named), each handler names its own request type.
 */
export type ServiceHandlers<Definition> = {
  [Method in keyof Definition]: (
    request: RequestOutputOf<Definition[Method]>,
    call: grpc.ServerUnaryCall<unknown, unknown>,
  ) => Promise<ResponseInputOf<Definition[Method]>>;
};

/** Without a definition, each handler names its own request type (`never` accepts any of them). */
type UntypedHandlers = Record<string, (request: never, call: grpc.ServerUnaryCall<unknown, unknown>) => Promise<unknown>>;

export function unaryHandlers<Definition = undefined>(
  handlers: NoInfer<Definition extends undefined ? UntypedHandlers : Partial<ServiceHandlers<Definition>>>,
  logger?: Logger,
): grpc.UntypedServiceImplementation {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers) as Array<
    [string, (request: unknown, call: grpc.ServerUnaryCall<unknown, unknown>) => Promise<unknown>]
  >) {
    implementation[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      handler(call.request, call).then(
        (response) => callback(null, response),
        (error: unknown) => callback(toGrpcError(error, logger)),
      );
    };
  }
  return implementation;
}

export interface GrpcServerHandle {
  server: grpc.Server;
  health: HealthImplementation;
  port: number;
  /** Stops accepting calls, lets in-flight calls finish within the grace, then forces. */
  close(graceMs?: number): Promise<void>;
  setServing(serving: boolean): void;
}

export interface GrpcServiceBinding {
  protoFile: string;
  serviceName: string;
  implementation: grpc.UntypedServiceImplementation;
}

/** Starts a gRPC server with the standard grpc.health.v1 service, reporting each bound service by name. */
export async function startGrpcServer(bindings: GrpcServiceBinding[], address: string): Promise<GrpcServerHandle> {
  const server = new grpc.Server({
    ...withoutChannelz,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
  });
  const statusMap: ServingStatusMap = { '': 'SERVING' };
  for (const binding of bindings) {
    const ServiceClient = grpcServiceClient(binding.protoFile, binding.serviceName);
    // Every call of ours in a server span (grpc-tracing.ts); the health service stays untraced, as probes would
    // drown the traces an SRE cares about.
    server.addService(ServiceClient.service, tracedGrpcImplementation(binding.serviceName, binding.implementation));
    statusMap[binding.serviceName] = 'SERVING';
  }
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort)));
  });
  const setServing = (serving: boolean) => {
    for (const name of Object.keys(statusMap)) health.setStatus(name, serving ? 'SERVING' : 'NOT_SERVING');
  };
  return {
    server,
    health,
    port,
    setServing,
    close: (graceMs = 5_000) =>
      new Promise<void>((resolve) => {
        setServing(false);
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/** `TDefault` is what a call answers when the call names no type; tests that read answers loosely pass `any`. */
export interface UnaryClient<TDefault = unknown> {
  raw: grpc.Client;
  /** Calls a unary method with a deadline; errors come back as AppError. */
  call<TResponse = TDefault>(
    method: string,
    request: unknown,
    options?: { deadlineMs?: number; metadata?: grpc.Metadata },
  ): Promise<TResponse>;
  close(): void;
}

export function createUnaryClient<TDefault = unknown>(
  protoFile: string,
  serviceName: string,
  address: string,
  defaultDeadlineMs = 5_000,
): UnaryClient<TDefault> {
  const ServiceClient = grpcServiceClient(protoFile, serviceName);
  const raw = new ServiceClient(address, grpc.credentials.createInsecure(), clientChannelOptions);
  const tracing = new GrpcClientTracing(serviceName);
  return {
    raw,
    call<TResponse = TDefault>(
      method: string,
      request: unknown,
      options: { deadlineMs?: number; metadata?: grpc.Metadata } = {},
    ): Promise<TResponse> {
      const fn = (raw as unknown as Record<string, (...parameters: unknown[]) => unknown>)[method];
      if (typeof fn !== 'function') return Promise.reject(new Error(`${serviceName} has no method ${method}`));
      const deadline = new Date(Date.now() + (options.deadlineMs ?? defaultDeadlineMs));
      // The caller's trace continues in the server's span (grpc-tracing.ts).
      const callerContext = context.active();
      const metadata = injectTraceMetadata(options.metadata ?? new grpc.Metadata(), callerContext);
      const startedAt = performance.now();
      return new Promise<TResponse>((resolve, reject) => {
        // grpc-js captures the caller's stack on every call (a `new Error()`) only to append it to a failed call's
        // error; we turn every failure into an AppError (fromGrpcError), so that capture is CPU spent on every call
        // for nothing: about 10 µs of the 110 a loopback call costs client and server. The limit is restored before
        // anything else runs.
        const stackTraceLimit = Error.stackTraceLimit;
        Error.stackTraceLimit = 0;
        try {
          fn.call(raw, request, metadata, { deadline }, (error: grpc.ServiceError | null, response: TResponse) => {
            if (!error) return resolve(response);
            // An answer of our server's carries its error code (and has its server span); anything else did not reach one.
            if (error.metadata?.get(errorCodeKey).length !== 1) tracing.traceUnanswered(callerContext, method, startedAt, error);
            reject(fromGrpcError(error));
          });
        } finally {
          Error.stackTraceLimit = stackTraceLimit;
        }
      });
    },
    close: () => raw.close(),
  };
}

type RequestOf<Method> =
  Method extends MethodDefinition<infer Request, infer _Response, infer _RequestOutput, infer _ResponseOutput> ? Request : never;
type ResponseOf<Method> =
  Method extends MethodDefinition<infer _Request, infer _Response, infer _RequestOutput, infer ResponseOutput> ? ResponseOutput : never;

/**
 * A unary client typed by a service definition generated from proto/ (`services/shared/src/generated/proto`):
 * the method names, what each takes and what it answers are the proto's, so a renamed field fails to compile.
 */
export interface ServiceClient<Definition> {
  raw: grpc.Client;
  call<Method extends keyof Definition & string>(
    method: Method,
    request: RequestOf<Definition[Method]>,
    options?: { deadlineMs?: number; metadata?: grpc.Metadata },
  ): Promise<ResponseOf<Definition[Method]>>;
  close(): void;
}

export function createServiceClient<Definition>(
  protoFile: string,
  serviceName: string,
  address: string,
  defaultDeadlineMs = 5_000,
): ServiceClient<Definition> {
  return createUnaryClient(protoFile, serviceName, address, defaultDeadlineMs) as ServiceClient<Definition>;
}

/** Asks a server's standard health service whether it serves; used by readiness checks and the dev runner. */
export function checkGrpcHealth(address: string, deadlineMs = 1_000, service = ''): Promise<boolean> {
  const client = createUnaryClient('grpc/health/v1/health.proto', 'grpc.health.v1.Health', address, deadlineMs);
  return client
    .call<{ status: string }>('Check', { service })
    .then((response) => response.status === 'SERVING')
    .catch(() => false)
    .finally(() => client.close());
}
