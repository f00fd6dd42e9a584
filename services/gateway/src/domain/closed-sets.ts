import type { Static, TLiteral, TUnion } from '@sinclair/typebox';
import { AppError } from '@mtx/shared/errors';

type LiteralUnion = TUnion<TLiteral<string>[]>;

/**
 * The proto carries statuses and kinds as strings; the public schema states them as closed sets. A value outside
 * the set is a contract break between our own services, so it is an internal error here, never passed on to a
 * client as if the document allowed it.
 */
export function narrowTo<Schema extends LiteralUnion>(schema: Schema, value: string, field: string): Static<Schema> {
  if (schema.anyOf.some((member) => member.const === value)) return value as Static<Schema>;
  throw new AppError('internal', `a backend answered ${field} ${JSON.stringify(value)}, which the public schema does not allow`);
}
