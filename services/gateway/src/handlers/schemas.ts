import { Type, type TSchema } from '@sinclair/typebox';

/** The error body every non-2xx response has (docs/architecture.md, "API rules"). */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'Stable machine-readable code, e.g. `unknown_field`, `insufficient_balance`, `rate_limited`.' }),
        message: Type.String({ description: 'Human-readable explanation.' }),
        param: Type.Optional(Type.String({ description: 'The request field or header at fault, when there is one.' })),
        details: Type.Optional(Type.Object({}, { additionalProperties: true })),
      },
      { additionalProperties: false },
    ),
    request_id: Type.String({ description: 'Also in the X-Request-Id header; quote it when asking for support.' }),
  },
  { $id: 'ErrorEnvelope', additionalProperties: false },
);

const errorResponse = (description: string) => ({ ...Type.Ref(ErrorEnvelope), description });

/** Error responses shared by every authenticated route, so the OpenAPI document lists them. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const descriptions: Record<number, string> = {
    400: 'Invalid request: `invalid_request`, `unknown_field`, `amount_out_of_range`, `balance_cap_exceeded`, `too_many_legs`, `too_many_accounts`, `unknown_account`.',
    401: '`unauthenticated`: no key, or an unknown or revoked key.',
    402: '`insufficient_balance`: the balance cannot pay for this.',
    403: '`forbidden`: a read-only key on a write route.',
    404: '`not_found`: no such resource for this customer.',
    409: 'Conflict: `idempotency_key_reused`, `idempotency_key_in_progress`, `accounts_unreachable`.',
    429: '`rate_limited`: see Retry-After and the RateLimit-* headers.',
    503: '`unavailable`: a backing service is down; retry after Retry-After.',
  };
  const result: Record<number, TSchema> = {};
  for (const status of [401, 429, 503, ...statuses]) result[status] = errorResponse(descriptions[status] ?? 'Error.') as unknown as TSchema;
  return result;
}

export const rateLimitHeaders = {
  'ratelimit-limit': { type: 'integer', description: 'Requests allowed in any 60 s.' },
  'ratelimit-remaining': { type: 'integer', description: 'Requests that may still pass now: the limit less those of the last 60 s.' },
  'ratelimit-reset': { type: 'integer', description: 'Seconds until the oldest request of the last 60 s leaves them.' },
} as const;

/**
 * A string that is one of `values`: a plain JSON Schema `enum` (TypeBox's union of literals is an `anyOf` of
 * `const`s, which says the same with more schema for every tool that walks it).
 */
export function stringEnum<T extends string>(values: readonly T[], options: { description?: string } = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

/**
 * For text that reaches a trading terminal (symbols, comments, login fields): no control characters (U+0000 to
 * U+001F, U+007F). A terminal would read a NUL as the end of the string and a newline as a new record, so they are
 * refused with 400 rather than passed on.
 */
export const terminalText = {
  pattern: '^[^\\u0000-\\u001F\\u007F]*$',
  'x-error-message': 'must not contain control characters (U+0000 to U+001F, U+007F)',
} as const;
