import secureJson from 'secure-json-parse';
import { AppError } from '@mtx/shared/errors';

/**
 * Parses a JSON body with the protections a public endpoint needs: prototype-poisoning keys refused,
 * nesting depth bounded (a deep body would otherwise cost stack and validator time), numbers that JSON.parse
 * turns into Infinity refused.
 */
export function parseJsonBody(text: string, depthMax: number): unknown {
  if (text.length === 0) return undefined;
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new AppError('invalid_request', `request body is not valid JSON: ${(error as Error).message.slice(0, 120)}`);
  }
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node === 'number' && !Number.isFinite(node))
      throw new AppError('invalid_request', 'request body contains a number out of range');
    if (node === null || typeof node !== 'object') continue;
    if (depth > depthMax) throw new AppError('invalid_request', `request body is nested deeper than ${depthMax} levels`);
    for (const child of Object.values(node as Record<string, unknown>)) stack.push({ node: child, depth: depth + 1 });
  }
  return value;
}
