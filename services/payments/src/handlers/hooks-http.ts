import type { Static } from '@sinclair/typebox';
import Fastify, { LogController } from 'fastify';
import { AppError } from '@mtx/shared/errors';
import { isStoreUnavailable } from '@mtx/shared/grpc';
import { deferredChildLoggerFactory, type Logger } from '@mtx/shared/logger';
import { inHttpServerSpan, withoutHttpAutoInstrumentation } from '@mtx/shared/telemetry';
import {
  PostbackAcknowledgement,
  PostbackParams,
  postbackBodyLimitBytes,
  postbackHeaders,
  postbackRouteDescription,
} from '@mtx/shared/postback-request';
import type { Topups } from '../app/topups';
import { handleObservedPostback } from './postbacks';

/**
 * Payments' own hook listener (HOOKS_PORT): `POST /v1/hooks/payments/:provider`, where the ingress (or the
 * provider's configured URL) sends postbacks, so a postback crosses one process before it is recorded, not
 * three. The same route on the gateway passes the bytes on over gRPC, for deployments with one public address.
 * The only body parser keeps the raw bytes: the signature is checked over exactly what the provider signed.
 * The route makes its own HTTP server span: the auto-instrumentation's cost about 0.1 ms of CPU per request.
 */
export async function createHooksServer(topups: Topups, logger: Logger) {
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's child logger is made only if the request writes a line through it (a failed postback).
    childLoggerFactory: deferredChildLoggerFactory,
    bodyLimit: postbackBodyLimitBytes,
    // A postback is at most 64 KiB: a sender that takes longer than this to deliver one holds a socket for nothing.
    requestTimeout: 10_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // `example` annotates the shared schemas for the gateway's OpenAPI document.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, keywords: ['example'] } },
  });
  withoutHttpAutoInstrumentation(app.server);
  app.setErrorHandler((error: unknown, request, reply) => {
    let appError = refusalOf(error);
    if (!appError) {
      request.log.error({ err: error }, 'postback failed');
      appError = new AppError('unavailable', 'the postback could not be recorded; deliver it again');
    }
    void reply.status(appError.httpStatus).send({ error: appError.toBody() });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: postbackBodyLimitBytes }, (_request, body, done) => done(null, body));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post(
    '/v1/hooks/payments/:provider',
    {
      schema: {
        summary: 'Receive a payment provider postback',
        description: postbackRouteDescription,
        params: PostbackParams,
        response: { 200: PostbackAcknowledgement },
      },
    },
    (request) =>
      inHttpServerSpan('payments', request, '/v1/hooks/payments/:provider', {}, statusOfError, async () => {
        const { provider } = request.params as Static<typeof PostbackParams>;
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const answer = await handleObservedPostback(topups, provider, body, postbackHeaders(request.headers));
        return { received: true, outcome: answer.outcome };
      }),
  );
  await app.ready();
  return app;
}

/** The refusal an error is answered with; undefined for an unexpected one (logged, and answered 503). */
function refusalOf(error: unknown): AppError | undefined {
  const fastifyError = error as { validation?: unknown; statusCode?: number; message?: string };
  if (error instanceof AppError) return error;
  if (fastifyError.validation) return new AppError('invalid_request', fastifyError.message ?? 'invalid request');
  if (fastifyError.statusCode === 413) return new AppError('payload_too_large', `postbacks are at most ${postbackBodyLimitBytes} bytes`);
  if (isStoreUnavailable(error)) return new AppError('unavailable', 'storage is unavailable; retry shortly');
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
    return new AppError('invalid_request', fastifyError.message ?? 'invalid request');
  return undefined;
}

/** The status the error handler answers a route's error with, for the request's span. */
function statusOfError(error: unknown): number {
  return refusalOf(error)?.httpStatus ?? 503;
}
