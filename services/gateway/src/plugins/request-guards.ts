import { AppError } from '@mtx/shared/errors';
import { RouteMethods } from '../domain/route-methods';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayApp } from '../context';

/**
 * What is refused before any work: requests arriving while the server drains, query parameters a route does not
 * declare, and a known path under a method it does not have (405 with Allow). Registered before the routes, so
 * it sees each one added.
 */
export const requestGuardsPlugin = fp(
  async (app: GatewayApp) => {
    // Known paths and their methods, for 405 with Allow on a path that exists under another method.
    const routeMethods = new RouteMethods();
    app.addHook('onRoute', (route) => routeMethods.add(route.url, route.method));
    // While draining on SIGTERM, requests still arriving on kept-alive connections are refused before any work,
    // with the retriable `unavailable` (503, Retry-After) every client already handles.
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    // A callback hook, not an async one: it awaits nothing, and every request passes it, so no promise is made
    // and no microtask turn taken for it.
    app.addHook('onRequest', (request, reply, done) => {
      done(refusal(request, reply));
    });

    /** Why the request is refused before any work, or undefined. */
    function refusal(request: FastifyRequest, reply: FastifyReply): AppError | undefined {
      if (closing) return new AppError('unavailable', 'the server is shutting down; retry');
      if (request.routeOptions.url) {
        // A route that declares no query parameters takes none: one sent is refused, never silently ignored.
        if (!request.routeOptions.schema?.querystring && request.url.includes('?')) {
          const names = [...new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1)).keys()];
          if (names.length > 0) return new AppError('unknown_field', `unknown query parameter \`${names[0]}\``, { param: names[0]! });
        }
        return undefined;
      }
      // No route matched: before any body parsing, a known path under an unknown method is 405, not 404.
      const allowed = routeMethods.allowedFor(request.url.split('?')[0]!);
      if (allowed.length > 0) {
        reply.header('allow', allowed.join(', '));
        return new AppError('method_not_allowed', `${request.method} is not allowed on this path; it allows ${allowed.join(', ')}`);
      }
      return undefined;
    }
  },
  { name: 'mtx-request-guards' },
);
