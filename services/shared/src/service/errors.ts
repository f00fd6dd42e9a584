/**
 * One error type crosses every boundary: domain code throws AppError, gRPC carries its code and details in
 * trailing metadata, and the gateway turns it into the public envelope. Codes are the public ones from
 * docs/architecture.md ("API rules"), so no layer has to translate names.
 */
export const errorHttpStatus = {
  invalid_request: 400,
  unknown_field: 400,
  amount_out_of_range: 400,
  balance_cap_exceeded: 400,
  too_many_legs: 400,
  too_many_accounts: 400,
  unknown_account: 400,
  unauthenticated: 401,
  insufficient_balance: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_reused: 409,
  idempotency_key_in_progress: 409,
  accounts_unreachable: 409,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorHttpStatus;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, options: { param?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    if (options.param !== undefined) this.param = options.param;
    if (options.details !== undefined) this.details = options.details;
  }
  get httpStatus(): number {
    return errorHttpStatus[this.code];
  }
  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.param !== undefined) body.param = this.param;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorHttpStatus, value);
}
