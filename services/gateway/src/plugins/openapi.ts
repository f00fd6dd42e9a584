import fastifySwagger from '@fastify/swagger';
import { openApiDocumentOptions } from './openapi-document';
import fp from 'fastify-plugin';
import type { GatewayApp, GatewayDependencies } from '../context';

/** The OpenAPI document, generated from the routes' schemas (registered before them, so it sees each one). */
export const openApiPlugin = fp(
  async (app: GatewayApp, { dependencies }: { dependencies: GatewayDependencies }) => {
    const { config } = dependencies;
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
  },
  { name: 'mtx-openapi' },
);
