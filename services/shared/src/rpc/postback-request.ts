import { Type } from '@sinclair/typebox';

/**
 * What a provider postback may bring to payments, wherever it arrives (payments' own hook listener, or the
 * gateway passing it on): postbacks are small JSON documents, and only headers a provider has a reason to send.
 */
export const postbackBodyLimitBytes = 64 * 1024;
const forwardedHeadersMax = 64;
// Credentials a provider has no reason to send; never passed on, never logged.
const withheldHeaders = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Request headers as payments reads them: names lower-cased (as Node gives them), values joined, credentials withheld. */
export function postbackHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  let forwarded = 0;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || withheldHeaders.has(name) || forwarded >= forwardedHeadersMax) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    forwarded += 1;
  }
  return headers;
}

/** The provider's name in the hook's path. */
export const PostbackParams = Type.Object(
  { provider: Type.String({ pattern: '^[a-z0-9_-]{1,32}$', description: 'Payment provider name.', example: 'sandbox' }) },
  { additionalProperties: false },
);

/** The hook's answer to the provider. */
export const PostbackAcknowledgement = Type.Object(
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

export const postbackRouteDescription =
  "Called by the payment provider, not by API clients: no API key. The body is verified with the provider's HMAC-SHA256 signature (`X-Signature: sha256=<hex>` over the raw body, with a signed timestamp inside it) before anything is read; a missing or wrong signature is refused with 401 and changes nothing. A confirmed transaction is acknowledged once it is durably recorded in the postback inbox, and credited from there exactly once, however often and in whatever order it is delivered.";
