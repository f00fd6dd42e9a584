import secureJson from 'secure-json-parse';
import { AppError } from '@mtx/shared/errors';
import { firstJsonTextProblem } from './json-duplicate-keys';

/**
 * Parses a JSON body with the protections a public endpoint needs: prototype-poisoning keys refused,
 * nesting depth bounded (a deep body would otherwise cost stack and validator time), numbers that JSON.parse
 * turns into Infinity refused, and a key given twice in one object refused (JSON.parse would keep the last).
 */
export function parseJsonBody(text: string, depthMax: number): unknown {
  if (text.length === 0) return undefined;
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new AppError('invalid_request', `request body is not valid JSON: ${(error as Error).message.slice(0, 120)}`);
  }
  const problem = firstJsonTextProblem(text, depthMax);
  if (problem?.kind === 'duplicate_key')
    throw new AppError('invalid_request', `${problem.path} is given more than once in the request body`, { param: problem.path });
  if (problem?.kind === 'too_deep') throw new AppError('invalid_request', `request body is nested deeper than ${depthMax} levels`);
  if (problem?.kind === 'number_out_of_range') throw new AppError('invalid_request', 'request body contains a number out of range');
  return value;
}

/**
 * Why a JSON body cannot be read as sent, or undefined: we decode no Content-Encoding (an encoded body would be
 * parsed as its raw bytes), and JSON is UTF-8 (RFC 8259 §8.1), so another declared charset is refused rather than
 * misread.
 */
export function unreadableBodyReason(headers: { 'content-encoding'?: string; 'content-type'?: string }): AppError | undefined {
  const encoding = headers['content-encoding'];
  if (encoding?.split(',').some((token) => token.trim().toLowerCase() !== 'identity')) {
    return new AppError('unsupported_media_type', `Content-Encoding ${encoding} is not supported; send the body unencoded`, {
      param: 'Content-Encoding',
    });
  }
  const charset = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(headers['content-type'] ?? '');
  const name = charset ? (charset[1] ?? charset[2] ?? '') : 'utf-8';
  if (!['utf-8', 'utf8'].includes(name.toLowerCase())) {
    return new AppError('unsupported_media_type', `charset ${name} is not supported; send JSON as UTF-8`, { param: 'Content-Type' });
  }
  return undefined;
}
