import { Type, type Static } from '@sinclair/typebox';
import type { GatewayApp, GatewayDependencies } from '../context';
import { errorResponses } from './schemas';

/** Postbacks are small JSON documents; anything larger is not one. */
export const postbackBodyLimitBytes = 64 * 1024;
const forwardedHeadersMax = 64;
// Credentials a provider has no reason to send; never passed on.
const withheldHeaders = new Set(['authorization', 'cookie', 'proxy-authorization']);

const PostbackParams = Type.Object(
  { provider: Type.String({ pattern: '^[a-z0-9_-]{1,32}$', description: 'Payment provider name.', example: 'sandbox' }) },
  { additionalProperties: false },
);

const PostbackAcknowledgement = Type.Object(
  {
    received: Type.Boolean({
      description: 'The postback was verified and durably recorded; the provider may stop retrying.',
      example: true,
    }),
    outcome: Type.Union([Type.Literal('recorded'), Type.Literal('duplicate'), Type.Literal('ignored')], {
      description:
        '`recorded`: this delivery put the confirmed transaction in the inbox; the credit follows within milliseconds (GET /v1/wallet/topup/{id} shows it when it lands). `duplicate`: the transaction was recorded before, nothing changes. `ignored`: a status that moves no money (e.g. `confirming`).',
      example: 'recorded',
    }),
  },
  { additionalProperties: false },
);

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
          description:
            "Called by the payment provider, not by API clients: no API key. The body is verified with the provider's HMAC-SHA256 signature (`X-Signature: sha256=<hex>` over the raw body, with a signed timestamp inside it) before anything is read; a missing or wrong signature is refused with 401 and changes nothing. A confirmed transaction is acknowledged once it is durably recorded in the postback inbox, and credited from there exactly once, however often and in whatever order it is delivered.",
          params: PostbackParams,
          security: [],
          response: { 200: { ...PostbackAcknowledgement, description: 'Accepted.' }, ...errorResponses(400, 404) },
        },
      },
      async (request) => {
        const { provider } = request.params as Static<typeof PostbackParams>;
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const headers: Record<string, string> = {};
        let forwarded = 0;
        for (const [name, value] of Object.entries(request.headers)) {
          if (value === undefined || withheldHeaders.has(name) || forwarded >= forwardedHeadersMax) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
          forwarded += 1;
        }
        const answer = await dependencies.clients.payments.call('HandlePostback', { provider, body, headers }, { deadlineMs });
        // The credit lands after this answer; the wallet's announcement of it refreshes the customer's reads.
        return { received: true, outcome: answer.outcome };
      },
    );
  });
}
