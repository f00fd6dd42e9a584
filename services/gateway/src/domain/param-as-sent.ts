import { AppError } from '@mtx/shared/errors';

/**
 * The execution service checks each leg (each close account) with `defaults` and top-level selector fields
 * already merged in, so its errors name the leg: `orders[0].volume` for a volume the client gave only in
 * `defaults`. The client should read the field it actually sent; this names it (`defaults.volume`, or the
 * top-level `symbol` of a close), and leaves every other error as it is.
 */
export function withParamAsSent(error: unknown, body: unknown, listName: 'orders' | 'accounts'): unknown {
  if (!(error instanceof AppError) || error.param === undefined) return error;
  const match = new RegExp(`^${listName}\\[(\\d+)\\]\\.([a-z_]+)(.*)$`).exec(error.param);
  if (!match) return error;
  const [, index, field, rest] = match as unknown as [string, string, string, string];
  const request = (body ?? {}) as Record<string, unknown>;
  const entry = (request[listName] as Array<Record<string, unknown>> | undefined)?.[Number(index)];
  if (!entry || entry[field] !== undefined) return error;
  const defaults = request.defaults as Record<string, unknown> | undefined;
  // Close requests take selector fields at the top level too; the two never coexist (refused earlier).
  const sentAs =
    listName === 'accounts' && request[field] !== undefined
      ? `${field}${rest}`
      : defaults?.[field] !== undefined
        ? `defaults.${field}${rest}`
        : undefined;
  if (sentAs === undefined) return error;
  const message = error.message.startsWith(error.param) ? `${sentAs}${error.message.slice(error.param.length)}` : error.message;
  return new AppError(error.code, message, {
    param: sentAs,
    ...(error.details === undefined ? {} : { details: error.details }),
    cause: error,
  });
}
