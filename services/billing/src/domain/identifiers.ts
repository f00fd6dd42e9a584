/** Identifiers billing accepts from callers and the ones it mints. */
import crypto from 'node:crypto';
import { AppError } from '@mtx/shared/errors';

export const identifierPattern = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export function requireIdentifier(value: unknown, param: string): string {
  if (typeof value !== 'string' || !identifierPattern.test(value)) {
    throw new AppError('invalid_request', `${param} must be 1-128 characters of letters, digits and _ . : -`, { param });
  }
  return value;
}

export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}
