import fastifyApiReference from '@scalar/fastify-api-reference';
import type { GatewayApp, GatewayDependencies } from '../context';

/** Where the human-readable API reference lives. Its routes are public and never part of the document. */
export const docsRoutePrefix = '/docs';

/**
 * Nothing on the page comes from the internet: the script is served by the plugin from node_modules, the
 * document from this gateway, and the default web fonts are off. The policy makes the browser enforce it.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  // Scalar boots from an inline script that carries its configuration.
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export async function registerDocsRoutes(app: GatewayApp, _dependencies: GatewayDependencies): Promise<void> {
  // An encapsulated scope, so the hooks below apply to the reference's own routes only.
  await app.register(async (scope) => {
    scope.addHook('onRoute', (routeOptions) => {
      routeOptions.config = { ...routeOptions.config, auth: 'public', rateLimit: 'none' };
      routeOptions.schema = { ...routeOptions.schema, hide: true };
    });
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('content-security-policy', contentSecurityPolicy);
      reply.header('x-content-type-options', 'nosniff');
    });
    await scope.register(fastifyApiReference, {
      routePrefix: docsRoutePrefix,
      logLevel: 'warn',
      configuration: {
        url: '/openapi.json',
        pageTitle: 'MTX API reference',
        withDefaultFonts: false,
        telemetry: false,
        showDeveloperTools: 'never',
        hideClientButton: false,
        defaultOpenAllTags: true,
        operationTitleSource: 'summary',
        authentication: { preferredSecurityScheme: 'bearerAuth' },
        // The AI agent and MCP generator are hosted services; the reference must work offline.
        agent: { disabled: true },
        mcp: { disabled: true },
      },
    });
  });
}
