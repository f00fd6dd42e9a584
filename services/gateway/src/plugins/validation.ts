import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError, type ErrorCode } from '@mtx/shared/errors';
import { parseJsonBody } from '../domain/json-body';
import fp from 'fastify-plugin';
import type { GatewayApp, GatewayDependencies } from '../context';

function validationErrorToAppError(errors: ErrorObject[], part: string): AppError {
  const error = errors[0]!;
  const location = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'additionalProperties') {
    const field = (error.params as { additionalProperty: string }).additionalProperty;
    const param = location ? `${location}.${field}` : field;
    return new AppError('unknown_field', `unknown field \`${param}\` in ${part}`, { param });
  }
  // A schema may name the public code for its range errors (amount bounds → amount_out_of_range, more than 20
  // legs → too_many_legs); an empty list is not "too many", and a wrong type stays invalid_request.
  const rangeKeywords = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'maxItems'];
  const parentSchema = error.parentSchema as { 'x-error-code'?: ErrorCode; 'x-error-message'?: string } | undefined;
  const declaredCode = rangeKeywords.includes(error.keyword) ? parentSchema?.['x-error-code'] : undefined;
  const param =
    error.keyword === 'required'
      ? [location, (error.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.')
      : location || undefined;
  const detail =
    error.keyword === 'minItems'
      ? `must have at least ${(error.params as { limit: number }).limit} item(s)`
      : rangeKeywords.includes(error.keyword) && parentSchema?.['x-error-message']
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
 * public error code, query integers in decimal digits only, and JSON bodies parsed with a depth bound.
 */
export const validationPlugin = fp(
  async (app: GatewayApp, { dependencies }: { dependencies: GatewayDependencies }) => {
    const { config } = dependencies;
    const bodyAjv = newAjv(false);
    const queryAjv = newAjv(true);
    app.setValidatorCompiler(({ schema, httpPart }) => {
      const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
      const validate = ajv.compile(schema);
      // Query strings are coerced to their types, and coercion would read 1e3, 0x3e8, +1000 and 1000.0 as 1000:
      // an integer parameter takes decimal digits only.
      const integerFields = httpPart === 'querystring' ? integerPropertiesOf(schema) : [];
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
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as string, config.JSON_DEPTH_MAX));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  },
  { name: 'mtx-validation' },
);
