import { trace } from '@opentelemetry/api';
import { AppError } from '@mtx/shared/errors';
import type { Principal } from '../app/authenticator';
import fp from 'fastify-plugin';
import type { GatewayApp, GatewayDependencies } from '../context';

/**
 * Authentication and rate limits, before any route runs: an address that keeps failing is refused before its
 * key is read, a read-only key may only read, and each customer's bucket is counted across replicas. After a
 * customer's write, this gateway's read model forgets the customer before the answer leaves.
 */
export const authPlugin = fp(
  async (app: GatewayApp, { dependencies }: { dependencies: GatewayDependencies }) => {
    const { config } = dependencies;
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
        reply.header('retry-after', decision.retryAfterSeconds);
        throw new AppError(
          'rate_limited',
          `rate limit of ${decision.limit} requests per minute reached; retry in ${decision.retryAfterSeconds} s`,
        );
      }
    });

    const readModels = Object.values(dependencies.readModels);
    // A callback hook: it awaits nothing, so no promise and no microtask turn per answer.
    app.addHook('onSend', (request, _reply, payload, done) => {
      // This gateway's own writes are seen by the customer's next read here at once, before any announcement
      // arrives (invalidated before the answer leaves, so a client cannot read ahead of it).
      if (request.principal && request.method !== 'GET' && request.method !== 'HEAD')
        for (const readModel of readModels) readModel.invalidate(request.principal.customer_id);
      done(null, payload);
    });
  },
  { name: 'mtx-auth' },
);
