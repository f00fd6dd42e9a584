import { Type } from '@sinclair/typebox';
import type { GatewayApp, GatewayDependencies } from '../context';

/** How long one readiness answer serves the public /healthz: probes and monitors never multiply backend checks. */
const healthReuseMs = 1_000;

/**
 * What the API port says about the gateway's health: ok or not, nothing else (no versions, no dependency names).
 * The checks by name, the metrics and the liveness probe are on the operations listener (METRICS_PORT), which
 * the ingress does not publish.
 */
function publicHealth(dependencies: GatewayDependencies): () => Promise<boolean> {
  let last: { atMs: number; healthy: Promise<boolean> } | undefined;
  return () => {
    const nowMs = Date.now();
    if (!last || nowMs - last.atMs >= healthReuseMs) {
      const healthy = dependencies.readiness().then(
        (checks) => Object.values(checks).every(Boolean),
        () => false,
      );
      last = { atMs: nowMs, healthy };
    }
    return last.healthy;
  };
}

const HealthAnswer = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]) });

export async function registerSystemRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const healthy = publicHealth(dependencies);
  app.get(
    '/healthz',
    { config: { auth: 'public' }, schema: { hide: true, response: { 200: HealthAnswer, 503: HealthAnswer } } },
    async (_request, reply) =>
      (await healthy()) ? reply.status(200).send({ status: 'ok' }) : reply.status(503).send({ status: 'unavailable' }),
  );

  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
