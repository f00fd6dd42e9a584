import { Type } from '@sinclair/typebox';
import { prometheusExporter } from '@mtx/shared/instrumentation';
import type { GatewayApp, GatewayDependencies } from '../context';

export async function registerSystemRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  app.get(
    '/healthz',
    { config: { auth: 'public' }, schema: { hide: true, response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        response: {
          200: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Type.Boolean()) }),
          503: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Type.Boolean()) }),
        },
      },
    },
    async (_request, reply) => {
      const checks = await dependencies.readiness();
      const ready = Object.values(checks).every(Boolean);
      return reply.status(ready ? 200 : 503).send({ ready, checks });
    },
  );

  // Prometheus text exposition of the gateway's OpenTelemetry metrics, for scrapers inside the cluster.
  app.get('/metrics', { config: { auth: 'public', rateLimit: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const exporter = prometheusExporter();
    if (!exporter)
      return reply.status(503).type('text/plain').send('metrics are disabled (PROMETHEUS_METRICS=false or OTEL_SDK_DISABLED=true)\n');
    reply.hijack();
    exporter.getMetricsRequestHandler(request.raw, reply.raw);
    return reply;
  });

  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
