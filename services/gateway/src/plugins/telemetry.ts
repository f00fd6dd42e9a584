import { trace } from '@opentelemetry/api';
import type { Logger } from '@mtx/shared/logger';
import { createHistogram, instruments } from '@mtx/shared/instruments';
import fp from 'fastify-plugin';
import type { GatewayApp, GatewayDependencies } from '../context';

/**
 * `<method> <route>`, each made once: the routes and methods are the app's, a bounded set, so no span name is
 * built per request.
 */
const spanNames = new Map<string, Map<string, string>>();

function spanNameOf(method: string, route: string): string {
  let byMethod = spanNames.get(route);
  if (!byMethod) {
    byMethod = new Map();
    spanNames.set(route, byMethod);
  }
  let name = byMethod.get(method);
  if (!name) {
    name = `${method} ${route}`;
    byMethod.set(method, name);
  }
  return name;
}

/** Request ids, route-named server spans, one access line per request and the request-duration histogram. */
export const telemetryPlugin = fp(
  async (app: GatewayApp, { dependencies }: { dependencies: GatewayDependencies }) => {
    const { config } = dependencies;
    const requestDuration = createHistogram(instruments.gatewayRequestDuration);

    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id);
      // The server span (traceHttpServer) is named by method only until the route is known; the route template
      // makes traces searchable.
      const span = trace.getActiveSpan();
      const route = request.routeOptions.url;
      if (span?.isRecording() && route) {
        span.updateName(spanNameOf(request.method, route));
        span.setAttribute('http.route', route);
        span.setAttribute('mtx.request_id', request.id);
      }
    });

    app.addHook('onResponse', async (request, reply) => {
      // One access line per request; the logger's mixin adds trace_id and span_id, linking it to the trace. Written
      // by the root logger: the line names its request itself, so no per-request child is made for it. A route's
      // own log level (the API reference's `warn`) still silences it.
      if (config.ACCESS_LOG && (request.log as Logger).isLevelEnabled('info')) {
        app.log.info(
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
  },
  { name: 'mtx-telemetry' },
);
