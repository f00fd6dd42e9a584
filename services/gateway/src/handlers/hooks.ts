import type { Static } from '@sinclair/typebox';
import {
  PostbackAcknowledgement,
  PostbackParams,
  postbackBodyLimitBytes,
  postbackHeaders,
  postbackRouteDescription,
} from '@mtx/shared/postback-request';
import type { GatewayApp, GatewayDependencies } from '../context';
import { errorResponses } from './schemas';

/**
 * POST /v1/hooks/payments/:provider. Registered in a plugin scope of its own whose only body parser keeps the
 * raw bytes, so the signature that payments verifies is checked over exactly what the provider signed.
 */
export async function registerHooksRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.GRPC_DEADLINE_MS;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: postbackBodyLimitBytes }, (_request, body, done) => done(null, body));
    scope.post(
      '/v1/hooks/payments/:provider',
      {
        config: { auth: 'public', rateLimit: 'none' },
        bodyLimit: postbackBodyLimitBytes,
        schema: {
          tags: ['hooks'],
          summary: 'Receive a payment provider postback',
          description: `${postbackRouteDescription} Deployments may instead route /v1/hooks/ straight to payments' own hook listener (HOOKS_PORT), which answers the same; this route passes the raw bytes to payments over gRPC.`,
          params: PostbackParams,
          security: [],
          response: { 200: { ...PostbackAcknowledgement, description: 'Accepted.' }, ...errorResponses(400, 404) },
        },
      },
      async (request) => {
        const { provider } = request.params as Static<typeof PostbackParams>;
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const headers = postbackHeaders(request.headers);
        const answer = await dependencies.clients.payments.call('HandlePostback', { provider, body, headers }, { deadlineMs });
        // The credit lands after this answer; the wallet's announcement of it refreshes the customer's reads.
        return { received: true, outcome: answer.outcome };
      },
    );
  });
}
