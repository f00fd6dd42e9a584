/** Completes the document @fastify/swagger generates from the routes: shared headers, refusals made before any route runs, examples, links, the guide. */
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { errorHttpStatus, type ErrorCode } from '@mtx/shared/errors';
import type { OpenAPIV3 } from 'openapi-types';
import type { GatewayConfig } from '../config';
import { pathParameterLengthMax } from './errors';

/** Operations that honour the Idempotency-Key header (docs/architecture.md, "API rules"). */
export const idempotentOperations: ReadonlySet<string> = new Set(['POST /v1/orders', 'POST /v1/orders/close', 'POST /v1/orders/modify']);

/** Vendor key the per-route transform leaves on an operation so the whole-document pass knows its rate-limit bucket. */
const rateLimitMarker = 'x-mtx-rate-limit-bucket';

const headerReference = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** `32 KiB`, `19.5 KiB`: a byte limit as the reader knows it. */
const kibibytes = (bytes: number) => `${(bytes / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} KiB`;

/** What each public error code means, for the error table of the reference. Keyed by every code the gateway can send. */
const errorCodeDescriptions = (config: GatewayConfig): Record<ErrorCode, string> => ({
  invalid_request: 'The request is malformed: a wrong type, a missing required field, a bad header value. `param` names the field.',
  unknown_field:
    'The body has a field the endpoint does not accept; nothing is silently dropped. `param` is its path, written `orders[0].volume`.',
  amount_out_of_range: 'An amount lies outside its bounds (a top-up is 1000 to 50000 cents).',
  balance_cap_exceeded: 'The operation would take the balance above EUR 1,000 (100000 cents).',
  too_many_legs: 'More than 20 legs in one POST /v1/orders batch.',
  too_many_accounts: 'More than 20 accounts in one POST /v1/orders/close or /v1/orders/modify request, or one positions or history read.',
  unknown_account: "An account id is not one of this customer's accounts; the whole batch is rejected and nothing is sent.",
  unauthenticated: 'No `Authorization: Bearer <key>` header, or an unknown or revoked key.',
  insufficient_balance: 'The balance cannot pay for this (for example a seat for a new account).',
  forbidden: 'A read-only `rk_` key was used on a write; use the full `sk_` key.',
  not_found: "No such resource for this customer. Another customer's resource is also reported as not found.",
  method_not_allowed: 'The path exists but not with this HTTP method; the `Allow` header lists the methods it has.',
  idempotency_key_reused: 'The Idempotency-Key was already used for a different request: another body, or another route.',
  idempotency_key_in_progress: 'A request with the same Idempotency-Key is still running; retry shortly with the same key.',
  accounts_unreachable:
    '`require_reachable` was set and some accounts have no terminal; `details.account_ids` lists them and nothing was sent.',
  conflict: 'The resource is in a state that does not allow this change.',
  payload_too_large: 'The body exceeds the size limit.',
  uri_too_long: `A path segment is longer than any identifier can be (${pathParameterLengthMax.toLocaleString('en')} characters).`,
  unsupported_media_type: 'Bodies must be sent as `application/json`.',
  headers_too_large: `The request line and headers together are larger than the server reads (${kibibytes(config.HEADER_LIMIT_BYTES)}).`,
  rate_limited: 'Too many requests in the current minute; wait for `Retry-After` seconds.',
  internal: 'An unexpected error on our side. It carries no details; quote the `request_id`.',
  unavailable:
    'A backing service is down or timed out; retry after `Retry-After` seconds. Retry a write only with an Idempotency-Key, or after checking its effect.',
});

/** Descriptions for the tags the route files use; tags the document does not use are not added. */
const tagDescriptions: Record<string, string> = {
  wallet: 'The prepaid EUR balance, the assets a top-up can be paid in, and crypto top-ups. Money is integer EUR cents.',
  subscription: 'The per-account plan: seats, their own renewal dates, and the balance that pays for them.',
  servers: 'Balance-funded private servers, each renewed monthly on its own date.',
  accounts: 'Trading accounts (MT4 and MT5) connected to the customer; each occupies a seat.',
  orders: 'Batch order placement and closing across many accounts at once, with per-account results.',
  portfolio: 'What is open across the accounts, read through their terminals in one call.',
  history: "Deals and orders from the accounts' trade history, merged newest first across accounts, a page at a time.",
  events:
    'Customer webhooks: endpoints that receive signed events as they happen (`Mtx-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, at least once, in order, retried for three days), and the last 30 days of events for replay.',
  webhooks: 'Signed postbacks from the payment provider. Not called by API clients.',
  hooks: 'Signed postbacks from the payment provider. Not called by API clients.',
};

const tagOrder = ['wallet', 'subscription', 'servers', 'accounts', 'orders', 'portfolio', 'history', 'events', 'webhooks', 'hooks'];

function referenceGuide(config: GatewayConfig): string {
  const descriptions = errorCodeDescriptions(config);
  const errorRows = (Object.keys(errorHttpStatus) as ErrorCode[])
    .map((code) => `| ${errorHttpStatus[code]} | \`${code}\` | ${descriptions[code]} |`)
    .join('\n');
  return `

## Authentication
Send \`Authorization: Bearer <key>\`. Full keys start \`sk_\` and may call everything; read-only keys start \`rk_\` and may call every GET. A write with a read-only key is \`403 forbidden\`; no key or an unknown key is \`401 unauthenticated\`.

## Errors
Every non-2xx response has the body \`{"error": {"code", "message", "param"?, "details"?}, "request_id"}\`; \`request_id\` is also in the \`X-Request-Id\` header. Branch on \`code\`, never on \`message\`. Bad input is always a 4xx and writes nothing; batches are validated all-or-nothing. \`param\` names the field as you sent it, in one format: \`orders[0].volume\`, \`defaults.volume\`, \`accounts[1].tickets[0]\`, a query parameter or a header name.

Bodies are JSON in UTF-8 without a \`Content-Encoding\` (another charset or an encoded body is \`415 unsupported_media_type\`), and an object may not give a key twice (\`400 invalid_request\`). Paths are matched exactly (a trailing slash is \`404\`), integer path and query parameters are plain decimal digits, and text sent on to a trading terminal (symbols, comments, operations, expirations, login fields) may not contain control characters.

| Status | Code | Meaning |
|---|---|---|
${errorRows}

Per-leg and per-account failures of a batch are not HTTP errors: they come back inside the 200 response (\`status\`, \`retcode\`, \`retcode_description\`, \`message\`) and are counted in \`summary\`. A leg with status \`unknown\` got no reply by the deadline and may have executed: look it up with GET /v1/orders/batches/{batch_id} instead of placing it again.

## Idempotency
POST /v1/orders, POST /v1/orders/close and POST /v1/orders/modify accept an \`Idempotency-Key\` header (1 to 128 printable ASCII characters, for example a UUID). Keys are scoped to the customer, not to the route (a key used on one route is refused on another), and live ${Math.round(config.IDEMPOTENCY_TTL_MS / 60_000)} minutes from their first use. Replaying the same body with the same key returns the original response with \`idempotent_replay: true\` and sends nothing to any terminal; the same key with a different body, or on another route, is \`409 idempotency_key_reused\`; a duplicate that arrives while the first is still running is \`409 idempotency_key_in_progress\`. A retry after a \`5xx\` (a timeout: the batch may have been sent) works on the same batch and its legs' client ids, so it answers with what the first attempt did and never sends a leg twice. After the key's lifetime a request with it is new: a new batch, sent and executed. Generate one key per logical operation and reuse it on every retry.

## Rate limits
Each customer has ${config.RATE_LIMIT_EXECUTION_PER_MINUTE} requests per minute for POST /v1/orders, /v1/orders/close and /v1/orders/modify together, and a separate ${config.RATE_LIMIT_OTHER_PER_MINUTE} per minute for the rest of the API, shared by every gateway replica. The minute slides: the limit holds for any 60 seconds, not per clock minute. Authenticated responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` (requests that may still pass now: the limit less those of the last 60 s) and \`RateLimit-Reset\` (seconds until the oldest request of the last 60 s leaves them). Past the limit the answer is \`429 rate_limited\` with \`Retry-After\`: the seconds until the next request would pass. \`503 unavailable\` also carries \`Retry-After\`.

## Conventions
Money is an integer number of EUR cents in fields named \`*_eur_cents\`. Timestamps are ISO 8601 UTC strings. Field names are snake_case. Every path carries the prefix \`/v1\`; fields may be added to responses within a version, so ignore fields you do not know.`;
}

/**
 * Per-route pass over the document: public routes are marked as needing no key, and every rate-limited
 * route gets a marker naming its bucket, which the whole-document pass turns into response headers. It
 * only shapes the document; the schemas the route validates with are untouched.
 */
const transformRoute: SwaggerTransform = ({ schema, url, route }) => {
  const config = route.config ?? {};
  const documented: Record<string, unknown> = { ...(schema ?? {}) };
  if (config.auth === 'public') {
    if (documented.security === undefined) documented.security = [];
  } else {
    const bucket = config.rateLimit ?? 'other';
    if (bucket !== 'none') documented[rateLimitMarker] = bucket;
  }
  return { schema: documented, url };
};

interface OperationObject {
  description?: string;
  parameters?: Array<Record<string, unknown>>;
  responses?: Record<string, { description: string; headers?: Record<string, unknown>; content?: unknown }>;
  [key: string]: unknown;
}

const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Puts a header reference on a response, replacing a same-named inline header a route may have declared. */
function setResponseHeader(response: { headers?: Record<string, unknown> }, name: string): void {
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {}).filter(([existing]) => existing.toLowerCase() !== name.toLowerCase()),
  );
  response.headers = { ...headers, [name]: headerReference(name) };
}

/** An example body per error status, in the envelope every error uses; routes with a refusal of their own get theirs. */
const errorExamples: Record<string, { code: string; message: string; param?: string }> = {
  '400': { code: 'invalid_request', message: 'orders[0].volume must be greater than 0', param: 'orders[0].volume' },
  '401': { code: 'unauthenticated', message: 'invalid API key' },
  '402': { code: 'insufficient_balance', message: 'the balance (EUR 5.00) cannot pay EUR 12.00 for a seat; top up first' },
  '403': { code: 'forbidden', message: 'this operation needs a full (sk_) key; read-only (rk_) keys may only read' },
  '404': { code: 'not_found', message: 'no batch bat_7hQ2mZr9TnB4wXk3pL8c' },
  '409': {
    code: 'idempotency_key_reused',
    message: 'this Idempotency-Key was used with a different request (another body or another route)',
    param: 'Idempotency-Key',
  },
  '413': { code: 'payload_too_large', message: 'request body is too large' },
  '414': { code: 'uri_too_long', message: `a path segment is longer than ${pathParameterLengthMax} characters` },
  '415': { code: 'unsupported_media_type', message: 'send the body as application/json' },
  '429': { code: 'rate_limited', message: 'rate limit of 600 requests per minute reached; retry in 42 s' },
  '431': { code: 'headers_too_large', message: 'request headers are too large' },
  '503': { code: 'unavailable', message: 'a backing service is down; retry shortly' },
};

const routeErrorExamples: Record<string, Record<string, { code: string; message: string; param?: string }>> = {
  'POST /v1/wallet/topup': {
    '400': {
      code: 'invalid_request',
      message: 'USDT on BTC is not offered for 1000 cents; pick a row of GET /v1/wallet/assets for this amount',
      param: 'asset_code',
    },
  },
  'POST /v1/orders/close': {
    '400': { code: 'invalid_request', message: 'symbol is given both at the top level and in defaults; give it once', param: 'symbol' },
  },
};

/** An error response in the one envelope every error uses, for refusals the routes' own schemas do not declare. */
const envelopeResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

function documentOperation(method: string, path: string, operation: OperationObject, config: GatewayConfig): void {
  const bucket = operation[rateLimitMarker] as string | undefined;
  delete operation[rateLimitMarker];
  if (bucket) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      // 401 and 403 are decided before the rate limiter runs, so they carry no RateLimit-* headers.
      if (status === '401' || status === '403') continue;
      for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) setResponseHeader(response, name);
    }
    // The execution limit is stated on its operations, unless the route's own description already does.
    if (bucket === 'execution' && !/requests per minute/i.test(operation.description ?? '')) {
      const note = `Rate limit: ${config.RATE_LIMIT_EXECUTION_PER_MINUTE} requests per minute per customer, shared by POST /v1/orders, /v1/orders/close and /v1/orders/modify.`;
      operation.description = operation.description ? `${operation.description}\n\n${note}` : note;
    }
  }
  for (const status of ['429', '503']) {
    const response = operation.responses?.[status];
    if (response) setResponseHeader(response, 'Retry-After');
  }
  // Refusals Node's HTTP parser and the router make before any route runs, on every operation that can meet them.
  operation.responses ??= {};
  operation.responses['431'] ??= envelopeResponse(
    `\`headers_too_large\`: the request line and headers together pass ${kibibytes(config.HEADER_LIMIT_BYTES)}.`,
  );
  if (path.includes('{'))
    operation.responses['414'] ??= envelopeResponse(
      `\`uri_too_long\`: a path segment is longer than ${pathParameterLengthMax} characters.`,
    );
  if (idempotentOperations.has(`${method.toUpperCase()} ${path}`)) {
    const parameters = (operation.parameters ?? []).filter(
      (parameter) => !(parameter.in === 'header' && String(parameter.name).toLowerCase() === 'idempotency-key'),
    );
    operation.parameters = [...parameters, { $ref: '#/components/parameters/IdempotencyKey' }];
    operation.responses ??= {};
    operation.responses['409'] ??= envelopeResponse('Conflict: `idempotency_key_reused`, `idempotency_key_in_progress`.');
  }
  // Every error status with an example body in the envelope.
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const example = routeErrorExamples[`${method.toUpperCase()} ${path}`]?.[status] ?? errorExamples[status];
    const content = (response.content as Record<string, Record<string, unknown>> | undefined)?.['application/json'];
    if (example && content && Number(status) >= 400) content.example = { error: example, request_id: 'req_3Xk9pQ2mZr7TnB4wYc8d' };
  }
}

/** `get /v1/wallet/topup/{id}` → `getWalletTopupById`: one stable id per operation, which links refer to. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment && segment !== 'v1')
    .map((segment) => (segment.startsWith('{') ? `by_${segment.slice(1, -1)}` : segment))
    .flatMap((segment) => segment.split(/[_-]/))
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${method}${words.join('')}`;
}

function nameOperations(paths: Record<string, Record<string, OperationObject>>): void {
  for (const [path, pathItem] of Object.entries(paths)) {
    for (const method of httpMethods) if (pathItem[method]) pathItem[method]!.operationId ??= operationIdOf(method, path);
  }
}

/**
 * OpenAPI links from what creates a resource to what reads or removes it, so a client (and schemathesis's
 * stateful phase) can follow real flows: a top-up to its status, a batch to its stored outcomes, a server or an
 * account to its removal.
 */
const flows: Array<{
  from: [string, string, string];
  to: [string, string];
  name: string;
  parameters: Record<string, string>;
  description: string;
}> = [
  {
    from: ['post', '/v1/wallet/topup', '201'],
    to: ['get', '/v1/wallet/topup/{id}'],
    name: 'GetTopup',
    parameters: { id: '$response.body#/id' },
    description: 'The top-up, as its status moves.',
  },
  {
    from: ['post', '/v1/orders', '200'],
    to: ['get', '/v1/orders/batches/{batch_id}'],
    name: 'GetBatch',
    parameters: { batch_id: '$response.body#/batch_id' },
    description: 'The stored batch, with late replies and reconciliation.',
  },
  {
    from: ['post', '/v1/orders/close', '200'],
    to: ['get', '/v1/orders/batches/{batch_id}'],
    name: 'GetBatch',
    parameters: { batch_id: '$response.body#/batch_id' },
    description: 'The stored batch, with late replies and reconciliation.',
  },
  {
    from: ['post', '/v1/servers', '201'],
    to: ['delete', '/v1/servers/{id}'],
    name: 'CancelServer',
    parameters: { id: '$response.body#/id' },
    description: "Stops the server's renewal.",
  },
  {
    from: ['post', '/v1/accounts', '201'],
    to: ['delete', '/v1/accounts/{account_id}'],
    name: 'DisconnectAccount',
    parameters: { account_id: '$response.body#/id' },
    description: 'Disconnects the account.',
  },
];

function linkFlows(paths: Record<string, Record<string, OperationObject>>): void {
  for (const flow of flows) {
    const [method, path, status] = flow.from;
    const response = (paths[path]?.[method]?.responses as Record<string, { links?: Record<string, unknown> }> | undefined)?.[status];
    const target = paths[flow.to[1]]?.[flow.to[0]];
    if (!response || !target?.operationId)
      throw new Error(`OpenAPI link ${flow.name}: ${method} ${path} ${status} or ${flow.to.join(' ')} is missing`);
    response.links = {
      ...response.links,
      [flow.name]: { operationId: target.operationId, parameters: flow.parameters, description: flow.description },
    };
  }
}

/**
 * Whole-document pass: shared header and parameter definitions, the Idempotency-Key header on the
 * operations that honour it, RateLimit-* headers on every rate-limited response, Retry-After on 429 and
 * 503, tag descriptions, and a guide to authentication, errors, idempotency and limits in the description.
 */
function transformDocument(config: GatewayConfig): SwaggerTransformObject {
  return (documentObject) => {
    const document = (documentObject as { openapiObject: Partial<OpenAPIV3.Document> }).openapiObject;
    document.components ??= {};
    document.components.headers = {
      ...document.components.headers,
      'RateLimit-Limit': {
        description: "Requests allowed in any 60 s for this route's bucket.",
        schema: { type: 'integer', example: config.RATE_LIMIT_OTHER_PER_MINUTE },
      },
      'RateLimit-Remaining': {
        description: 'Requests that may still pass now: the limit less those of the last 60 s.',
        schema: { type: 'integer', example: config.RATE_LIMIT_OTHER_PER_MINUTE - 1 },
      },
      'RateLimit-Reset': {
        description: 'Seconds until the oldest request of the last 60 s leaves them.',
        schema: { type: 'integer', example: 42 },
      },
      'Retry-After': {
        description: 'Seconds to wait before retrying; on 429, until the next request would pass.',
        schema: { type: 'integer', example: 1 },
      },
    };
    document.components.parameters = {
      ...document.components.parameters,
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: `Makes a retry safe: the same key with the same body returns the original response (\`idempotent_replay: true\`) and sends nothing again; the same key with another body, or on another route, is 409 \`idempotency_key_reused\`. Scoped to the customer, kept ${Math.round(config.IDEMPOTENCY_TTL_MS / 60_000)} minutes from first use; after that a request with the key is new.`,
        schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7E]+$' },
        example: '5f1c7a2e-8d4b-4c5e-9a1f-3b2d6e7f8a90',
      },
    };
    for (const [path, pathItem] of Object.entries((document.paths ?? {}) as Record<string, Record<string, OperationObject>>)) {
      for (const method of httpMethods) {
        const operation = pathItem[method];
        if (operation) documentOperation(method, path, operation, config);
      }
    }
    const paths = (document.paths ?? {}) as Record<string, Record<string, OperationObject>>;
    writeExclusiveBoundsAsOpenApi30(paths);
    writeExclusiveBoundsAsOpenApi30(document.components?.schemas);
    nameOperations(paths);
    linkFlows(paths);
    const usedTags = new Set<string>();
    for (const pathItem of Object.values((document.paths ?? {}) as Record<string, Record<string, OperationObject>>)) {
      for (const method of httpMethods) for (const tag of (pathItem[method]?.tags as string[] | undefined) ?? []) usedTags.add(tag);
    }
    const declared = new Map<string, OpenAPIV3.TagObject>((document.tags ?? []).map((tag) => [tag.name, tag]));
    for (const tag of usedTags) {
      const description = tagDescriptions[tag.toLowerCase()];
      if (!declared.has(tag)) declared.set(tag, description ? { name: tag, description } : { name: tag });
    }
    // The reader's order: money first, then what it pays for, then trading; provider postbacks last.
    const rank = (name: string) => {
      const index = tagOrder.indexOf(name.toLowerCase());
      return index === -1 ? tagOrder.length - 2 : index;
    };
    if (declared.size > 0) document.tags = [...declared.values()].sort((left, right) => rank(left.name) - rank(right.name));
    document.info = {
      title: '',
      version: '',
      ...document.info,
      description: `${document.info?.description ?? ''}${referenceGuide(config)}`,
    };
    return document;
  };
}

/**
 * JSON Schema's numeric `exclusiveMinimum: 0` (what ajv validates) written as OpenAPI 3.0 has it, `minimum: 0,
 * exclusiveMinimum: true`. The document's schemas are @fastify/swagger's copies, so the routes' own are untouched.
 */
function writeExclusiveBoundsAsOpenApi30(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  for (const [bound, flag] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof schema[flag] === 'number') {
      schema[bound] = schema[flag];
      schema[flag] = true;
    }
  }
  for (const child of Object.values(schema)) writeExclusiveBoundsAsOpenApi30(child);
}

/** Options for @fastify/swagger that complete the generated document; spread into its registration in app.ts. */
export function openApiDocumentOptions(config: GatewayConfig): { transform: SwaggerTransform; transformObject: SwaggerTransformObject } {
  return { transform: transformRoute, transformObject: transformDocument(config) };
}
