import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError, errorHttpStatus, type ErrorCode } from '@mtx/shared/errors';
import { isStoreUnavailable } from '@mtx/shared/grpc';
import { latencyBucketsMs, meter } from '@mtx/shared/telemetry';
import { trace } from '@opentelemetry/api';
import type { Principal } from './domain/authenticator';
import { parseJsonBody } from './domain/json-body';
import { randomBase62 } from './domain/keys';
import { RouteMethods } from './domain/route-methods';
import { registerRoutes } from './handlers';
import type { GatewayApp, GatewayDependencies } from './context';
import { openApiDocumentOptions } from './handlers/docs';

/** Longest path segment the router hands to a route; identifiers are far shorter (their schemas say how long). */
const pathParameterLengthMax = 2_000;

function validationErrorToAppError(errors: ErrorObject[], part: string): AppError {
  const error = errors[0]!;
  const location = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'additionalProperties') {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    const param = location ? `${location}.${field}` : field;
    return new AppError('unknown_field', `unknown field \`${param}\` in ${part}`, { param });
  }
  // A schema may name the public code for its range errors (amount bounds → amount_out_of_range, more than 20
  // legs → too_many_legs); an empty list is not "too many", and a wrong type stays invalid_request.
  const rangeKeywords = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'maxItems'];
  const parentSchema = error.parentSchema as { 'x-error-code'?: ErrorCode; 'x-error-message'?: string } | undefined;
  const declaredCode = rangeKeywords.includes(error.keyword) ? parentSchema?.['x-error-code'] : undefined;
  const param =
    error.keyword === 'required'
      ? [location, (error.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.')
      : location || undefined;
  const detail =
    error.keyword === 'minItems'
      ? `must have at least ${(error.params as { limit: number }).limit} item(s)`
      : rangeKeywords.includes(error.keyword) && parentSchema?.['x-error-message']
        ? parentSchema['x-error-message']
        : (error.message ?? 'is invalid');
  return new AppError(declaredCode ?? 'invalid_request', `${param ?? part} ${detail}`, param ? { param } : {});
}

/** The properties a query schema declares as integers. */
function integerPropertiesOf(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

function newAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    // Never drop unknown fields silently: additionalProperties:false must reject them.
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerceTypes ? 'array' : false,
    allErrors: false,
    strict: false,
    verbose: true,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-error-code', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-error-message', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

export async function buildGateway(dependencies: GatewayDependencies): Promise<GatewayApp> {
  const { config, logger } = dependencies;
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: () => `req_${randomBase62(20)}`,
    trustProxy: config.TRUSTED_PROXIES.trim()
      ? config.TRUSTED_PROXIES.split(',')
          .map((entry) => entry.trim())
          .filter(Boolean)
      : false,
    // Fastify's own closing answer is a bare 503 body; the hook below answers in the error envelope instead.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Errors Node's HTTP parser raises before a request exists (oversized headers, malformed requests) still
    // get the error envelope, so clients parse one error shape whatever went wrong.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy();
      const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
      const status = tooLarge ? 431 : 400;
      const body = JSON.stringify({
        error: {
          code: tooLarge ? 'headers_too_large' : 'invalid_request',
          message: tooLarge ? 'request headers are too large' : 'malformed HTTP request',
        },
        request_id: `req_${randomBase62(20)}`,
      });
      socket.end(
        `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    ajv: { customOptions: {} },
    // Long enough that an over-long id reaches its route and is refused by the parameter's schema (a documented
    // 400); beyond it the router answers 414 itself (frameworkErrors below puts that in the envelope too).
    routerOptions: { maxParamLength: pathParameterLengthMax },
    // Errors the router raises before any route runs (a malformed percent-encoding, a segment past the limit).
    frameworkErrors: (error, request, reply: FastifyReply) => {
      const code = (error as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'uri_too_long' : 'invalid_request';
      const message =
        code === 'uri_too_long'
          ? `a path segment is longer than ${pathParameterLengthMax} characters`
          : 'the URL is not valid (malformed percent-encoding)';
      void reply.status(errorHttpStatus[code]).send({ error: { code, message }, request_id: request.id });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Known paths and their methods, for 405 with Allow on a path that exists under another method.
  const routeMethods = new RouteMethods();
  app.addHook('onRoute', (route) => routeMethods.add(route.url, route.method));

  const bodyAjv = newAjv(false);
  const queryAjv = newAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
    const validate = ajv.compile(schema);
    // Query strings are coerced to their types, and coercion would read 1e3, 0x3e8, +1000 and 1000.0 as 1000:
    // an integer parameter takes decimal digits only.
    const integerFields = httpPart === 'querystring' ? integerPropertiesOf(schema) : [];
    return (data: unknown) => {
      for (const field of integerFields) {
        const raw = (data as Record<string, unknown> | null)?.[field];
        if (typeof raw === 'string' && !/^-?(0|[1-9][0-9]*)$/.test(raw)) {
          return {
            error: new AppError('invalid_request', `${field} must be a whole number written in decimal digits`, {
              param: field,
            }) as unknown as Error,
          };
        }
      }
      if (validate(data)) return { value: data };
      return { error: validationErrorToAppError(validate.errors ?? [], httpPart ?? 'request') as unknown as Error };
    };
  });
  app.setSchemaErrorFormatter(
    (errors, dataVar) => validationErrorToAppError(errors as unknown as ErrorObject[], dataVar) as unknown as Error,
  );

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string, config.JSON_DEPTH_MAX));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  const requestDuration = meter('gateway').createHistogram('mtx.gateway.request.duration', {
    unit: 'ms',
    description: 'REST request duration by route and status',
    advice: { explicitBucketBoundaries: latencyBucketsMs },
  });

  // While draining on SIGTERM, requests still arriving on kept-alive connections are refused before any work,
  // with the retriable `unavailable` (503, Retry-After) every client already handles.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) throw new AppError('unavailable', 'the server is shutting down; retry');
    if (request.routeOptions.url) {
      // A route that declares no query parameters takes none: one sent is refused, never silently ignored.
      if (!request.routeOptions.schema?.querystring && request.url.includes('?')) {
        const names = [...new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1)).keys()];
        if (names.length > 0) throw new AppError('unknown_field', `unknown query parameter \`${names[0]}\``, { param: names[0]! });
      }
      return;
    }
    // No route matched: before any body parsing, a known path under an unknown method is 405, not 404.
    const allowed = routeMethods.allowedFor(request.url.split('?')[0]!);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      throw new AppError('method_not_allowed', `${request.method} is not allowed on this path; it allows ${allowed.join(', ')}`);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // The HTTP instrumentation names server spans by method only; the route template makes traces searchable.
    const span = trace.getActiveSpan();
    if (span && request.routeOptions.url) {
      span.updateName(`${request.method} ${request.routeOptions.url}`);
      span.setAttributes({ 'http.route': request.routeOptions.url, 'mtx.request_id': request.id });
    }
  });

  app.addHook('onSend', async (request) => {
    // This gateway's own writes are seen by the customer's next read here at once, before any announcement
    // arrives (invalidated before the answer leaves, so a client cannot read ahead of it).
    if (request.principal && request.method !== 'GET' && request.method !== 'HEAD')
      dependencies.readModels.wallet.invalidate(request.principal.customer_id);
  });

  app.addHook('onResponse', async (request, reply) => {
    // One access line per request; the logger's mixin adds trace_id and span_id, linking it to the trace.
    if (config.ACCESS_LOG) {
      request.log.info(
        {
          request_id: request.id,
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
          customer_id: request.principal?.customer_id,
        },
        'request completed',
      );
    }
    requestDuration.record(reply.elapsedTime, {
      'http.route': request.routeOptions.url ?? 'unmatched',
      'http.request.method': request.method,
      'http.response.status_code': reply.statusCode,
    });
  });

  app.addHook('onRequest', async (request, reply) => {
    const routeConfig = request.routeOptions.config ?? {};
    if (routeConfig.auth === 'public' || !request.routeOptions.url) return;
    // An address that keeps failing to authenticate is refused before its key is even read. A request with no key
    // at all costs nothing to refuse and is not counted.
    const waitSeconds = dependencies.authFailures.retryAfterSeconds(request.ip);
    if (waitSeconds > 0) {
      reply.header('retry-after', waitSeconds);
      throw new AppError('rate_limited', `too many failed authentications from this address; retry in ${waitSeconds} s`);
    }
    let principal: Principal;
    try {
      principal = await dependencies.authenticator.authenticate(request.headers.authorization);
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthenticated' && request.headers.authorization)
        dependencies.authFailures.noteFailure(request.ip);
      throw error;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && principal.level !== 'full') {
      throw new AppError('forbidden', 'this operation needs a full (sk_) key; read-only (rk_) keys may only read');
    }
    request.principal = principal;
    trace.getActiveSpan()?.setAttributes({ 'mtx.customer_id': principal.customer_id, 'mtx.key_id': principal.key_id });
    const bucket = routeConfig.rateLimit ?? 'other';
    if (bucket === 'none') return;
    const limit = bucket === 'execution' ? config.RATE_LIMIT_EXECUTION_PER_MINUTE : config.RATE_LIMIT_OTHER_PER_MINUTE;
    const decision = await dependencies.rateLimiter.take(bucket, principal.customer_id, limit);
    reply.header('ratelimit-limit', decision.limit);
    reply.header('ratelimit-remaining', decision.remaining);
    reply.header('ratelimit-reset', decision.resetSeconds);
    if (!decision.allowed) {
      reply.header('retry-after', decision.resetSeconds);
      throw new AppError(
        'rate_limited',
        `rate limit of ${decision.limit} requests per minute reached; retry in ${decision.resetSeconds} s`,
      );
    }
  });

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.httpStatus >= 500 && appError.code !== 'unavailable') request.log.error({ err: error }, 'request failed');
    else if (appError.code === 'unavailable') request.log.warn({ err: { message: (error as Error).message } }, 'backend unavailable');
    if (appError.code === 'unavailable') reply.header('retry-after', 1);
    void reply.status(appError.httpStatus).send({ error: appError.toBody(), request_id: request.id });
  });

  app.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` }, request_id: request.id });
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Wallet, Subscription and Multi-Account Trading API',
        version: '1.0.0',
        description:
          'Prepaid EUR balance topped up in crypto, per-account seats billed from it, and batch order placement and closing across MT4 and MT5 accounts. Every error has the body `{"error": {"code", "message", "param"?, "details"?}, "request_id"}`.',
      },
      servers: [{ url: config.PUBLIC_BASE_URL ?? '/' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'Full keys start `sk_`; read-only keys start `rk_` and may call every GET.',
          },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (json.$id as string) ?? `def-${index}` },
    ...openApiDocumentOptions(config),
  });

  await registerRoutes(app, dependencies);
  return app;
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isStoreUnavailable(error)) return new AppError('unavailable', 'storage is unavailable; retry shortly');
  const fastifyError = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
  if (fastifyError?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AppError('payload_too_large', 'request body is too large');
  if (fastifyError?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new AppError('unsupported_media_type', 'send the body as application/json');
  if (fastifyError?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new AppError('invalid_request', 'request body is empty');
  if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError(
      fastifyError.statusCode === 404 ? 'not_found' : fastifyError.statusCode === 405 ? 'method_not_allowed' : 'invalid_request',
      fastifyError.message ?? 'invalid request',
    );
  }
  return new AppError('internal', 'internal error', { cause: error });
}
