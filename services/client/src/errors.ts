/**
 * The API answered with a non-2xx status. Fields mirror the error envelope
 * `{"error": {"code", "message", "param"?, "details"?}, "request_id"}`; branch on `code`, never on `message`.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  /** Seconds the server asked us to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** How many attempts were made before giving up. */
  readonly attempts: number;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    param?: string | undefined;
    details?: Record<string, unknown> | undefined;
    requestId?: string | undefined;
    retryAfterSeconds?: number | undefined;
    attempts?: number;
  }) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.param = init.param;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.attempts = init.attempts ?? 1;
  }

  /** A one-line summary for logs and terminals: status, code, message, the field at fault and the request id. */
  describe(): string {
    const parts = [`${this.status} ${this.code}: ${this.message}`];
    if (this.param) parts.push(`(param ${this.param})`);
    if (this.requestId) parts.push(`[request ${this.requestId}]`);
    return parts.join(' ');
  }
}

/**
 * No answer came back: the connection failed or the per-attempt deadline passed. For a write without an
 * Idempotency-Key the request may or may not have taken effect, so it was not retried.
 */
export class ApiConnectionError extends Error {
  readonly method: string;
  readonly path: string;
  readonly timedOut: boolean;
  readonly attempts: number;

  constructor(init: { method: string; path: string; timedOut: boolean; attempts: number; cause: unknown }) {
    const reason = init.timedOut ? 'no response before the deadline' : `connection failed (${describeCause(init.cause)})`;
    super(`${init.method} ${init.path}: ${reason} after ${init.attempts} attempt${init.attempts === 1 ? '' : 's'}`, { cause: init.cause });
    this.name = 'ApiConnectionError';
    this.method = init.method;
    this.path = init.path;
    this.timedOut = init.timedOut;
    this.attempts = init.attempts;
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: { code?: string; message?: string } }).cause;
  return inner?.code ?? inner?.message ?? cause.message;
}
