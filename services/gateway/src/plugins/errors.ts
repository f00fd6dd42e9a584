import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorHttpStatus } from '@mtx/shared/errors';
import { isStoreUnavailable } from '@mtx/shared/grpc';
import { randomBase62 } from '../domain/keys';
import fp from 'fastify-plugin';
import type { GatewayApp } from '../context';

/** Longest path segment the router hands to a route; identifiers are far shorter (their schemas say how long). */
export const pathParameterLengthMax = 2_000;

/**
 * Errors Node's HTTP parser raises before a request exists (oversized headers, malformed requests) still get the
 * error envelope, so clients parse one error shape whatever went wrong.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
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
}

/** Errors the router raises before any route runs (a malformed percent-encoding, a segment past the limit). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const code = (error as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'uri_too_long' : 'invalid_request';
  const message =
    code === 'uri_too_long'
      ? `a path segment is longer than ${pathParameterLengthMax} characters`
      : 'the URL is not valid (malformed percent-encoding)';
  void reply.status(errorHttpStatus[code]).send({ error: { code, message }, request_id: request.id });
}

/** Every error a route or hook throws, and every unmatched path, answered in the error envelope. */
export const errorsPlugin = fp(
  async (app: GatewayApp) => {
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
  },
  { name: 'mtx-errors' },
);

export function toAppError(error: unknown): AppError {
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
