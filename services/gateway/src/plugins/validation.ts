import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError, type ErrorCode } from '@mtx/shared/errors';
import { parseJsonBody, unreadableBodyReason } from '../domain/json-body';
import fp from 'fastify-plugin';
import type { GatewayApp, GatewayDependencies } from '../context';

/**
 * A field's path in the one format every error `param` uses, the client's and the OpenAPI document's:
 * `orders[0].volume` (ajv's JSON pointer `/orders/0/volume`, with array indices in brackets).
 */
export function fieldPath(instancePath: string, property?: string): string {
  let path = '';
  for (const segment of instancePath ? instancePath.slice(1).split('/') : []) {
    const name = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    // Our schemas have no property named by digits, so a digit segment is an array index.
    path += /^(0|[1-9][0-9]*)$/.test(name) ? `[${name}]` : path ? `.${name}` : name;
  }
  if (property !== undefined) path += path ? `.${property}` : property;
  return path;
}

function validationErrorToAppError(errors: ErrorObject[], part: string): AppError {
  const error = errors[0]!;
  if (error.keyword === 'additionalProperties') {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    const param = fieldPath(error.instancePath, field);
    // Worded as the request guards word it on routes that declare no query at all.
    const message = part === 'querystring' ? `unknown query parameter \`${param}\`` : `unknown field \`${param}\` in ${part}`;
    return new AppError('unknown_field', message, { param });
  }
  // A schema may name the public code for its range errors (amount bounds → amount_out_of_range, more than 20
  // legs → too_many_legs); an empty list is not "too many", and a wrong type stays invalid_request.
  const rangeKeywords = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'maxItems'];
  const parentSchema = error.parentSchema as { 'x-error-code'?: ErrorCode; 'x-error-message'?: string } | undefined;
  const declaredCode = rangeKeywords.includes(error.keyword) ? parentSchema?.['x-error-code'] : undefined;
  const param =
    error.keyword === 'required'
      ? fieldPath(error.instancePath, (error.params as { missingProperty: string }).missingProperty)
      : fieldPath(error.instancePath) || undefined;
  const detail =
    error.keyword === 'minItems'
      ? `must have at least ${(error.params as { limit: number }).limit} item(s)`
      : [...rangeKeywords, 'pattern'].includes(error.keyword) && parentSchema?.['x-error-message']
        ? parentSchema['x-error-message']
        : (error.message ?? 'is invalid');
  return new AppError(declaredCode ?? 'invalid_request', `${param ?? part} ${detail}`, param ? { param } : {});
}

/** The properties a query schema declares as integers. */
function integerPropertiesOf(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

function newAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    // Never drop unknown fields silently: additionalProperties:false must reject them.
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerceTypes ? 'array' : false,
    allErrors: false,
    strict: false,
    verbose: true,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-error-code', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-error-message', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

/**
 * Request validation: every schema compiled by ajv that rejects unknown fields, its first error turned into the
 * public error code, integers in queries and paths in decimal digits only, and JSON bodies (UTF-8, unencoded) parsed with a depth bound
 * and no key given twice.
 */
export const validationPlugin = fp(
  async (app: GatewayApp, { dependencies }: { dependencies: GatewayDependencies }) => {
    const { config } = dependencies;
    const bodyAjv = newAjv(false);
    const queryAjv = newAjv(true);
    app.setValidatorCompiler(({ schema, httpPart }) => {
      const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
      const validate = ajv.compile(schema);
      // Query strings and path parameters are coerced to their types, and coercion would read 1e3, 0x3e8, +1000
      // and 1000.0 as 1000: an integer parameter takes decimal digits only.
      const integerFields = httpPart === 'querystring' || httpPart === 'params' ? integerPropertiesOf(schema) : [];
      return (data: unknown) => {
        for (const field of integerFields) {
          const raw = (data as Record<string, unknown> | null)?.[field];
          if (typeof raw === 'string' && !/^-?(0|[1-9][0-9]*)$/.test(raw)) {
            return {
              error: new AppError('invalid_request', `${field} must be a whole number written in decimal digits`, {
                param: field,
              }) as unknown as Error,
            };
          }
        }
        if (validate(data)) return { value: data };
        return { error: validationErrorToAppError(validate.errors ?? [], httpPart ?? 'request') as unknown as Error };
      };
    });
    app.setSchemaErrorFormatter(
      (errors, dataVar) => validationErrorToAppError(errors as unknown as ErrorObject[], dataVar) as unknown as Error,
    );

    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const unreadable = unreadableBodyReason(request.headers);
      if (unreadable) {
        done(unreadable, undefined);
        return;
      }
      try {
        done(null, parseJsonBody(body as string, config.JSON_DEPTH_MAX));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  },
  { name: 'mtx-validation' },
);
