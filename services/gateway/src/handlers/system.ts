import { Type } from '@sinclair/typebox';
import type { GatewayApp, GatewayDependencies } from '../app';

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
      schema: { hide: true, response: { 200: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Type.Boolean()) }), 503: Type.Object({ ready: Type.Boolean(), checks: Type.Record(Type.String(), Type.Boolean()) }) } },
    },
    async (_request, reply) => {
      const checks = await dependencies.readiness();
      const ready = Object.values(checks).every(Boolean);
      return reply.status(ready ? 200 : 503).send({ ready, checks });
    },
  );

  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
