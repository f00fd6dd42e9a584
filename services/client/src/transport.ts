import { ApiConnectionError, ApiError } from './errors';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RetryEvent {
  method: HttpMethod;
  path: string;
  /** The attempt that just failed (1-based). */
  attempt: number;
  delayMs: number;
  /** `status 429`, `status 503`, `idempotency_key_in_progress`, `network` or `timeout`. */
  reason: string;
  idempotencyKey: string | undefined;
}

export interface TransportOptions {
  /** Base address, e.g. http://127.0.0.1:8080 (a trailing slash is fine). */
  baseUrl: string;
  /** `sk_…` (full) or `rk_…` (read-only) key. */
  apiKey: string;
  /** Deadline of one attempt. Default 30 s. */
  timeoutMs?: number;
  /** Attempts per call, the first included. Default 4. */
  maxAttempts?: number;
  /** Wall-clock budget of one call across attempts and waits; no retry starts that would end past it. Default 60 s. */
  retryBudgetMs?: number;
  /** Longest single wait; a Retry-After beyond it is returned to the caller as the error instead. Default 30 s. */
  maxRetryDelayMs?: number;
  /** Backoff base when the server gives no Retry-After. Default 250 ms, doubled per attempt, with jitter. */
  retryBaseDelayMs?: number;
  fetch?: typeof fetch;
  /** How to wait between attempts; tests replace it to control time. */
  sleep?: (delayMs: number, signal?: AbortSignal) => Promise<void>;
  onRetry?: (event: RetryEvent) => void;
  userAgent?: string;
}

export interface CallOptions {
  /** Cancels the call, including any wait between attempts. */
  signal?: AbortSignal;
  /** Overrides the per-attempt deadline for this call. */
  timeoutMs?: number;
  /** Overrides the number of attempts for this call. */
  maxAttempts?: number;
}

export interface RequestSpec extends CallOptions {
  method: HttpMethod;
  path: string;
  /** Query parameters; an array repeats its parameter (`account_id=a&account_id=b`). */
  query?: Record<string, string | number | boolean | ReadonlyArray<string | number> | undefined> | undefined;
  body?: unknown;
  /** Sent as Idempotency-Key on every attempt, which makes the request safe to retry. */
  idempotencyKey?: string | undefined;
}

const clientVersion = '0.1.0';

function abortableSleep(delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const dateMs = Date.parse(value);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, Math.ceil((dateMs - nowMs) / 1000));
}

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; param?: unknown; details?: unknown };
  request_id?: unknown;
}

function apiErrorFrom(response: Response, text: string, attempts: number): ApiError {
  let envelope: ErrorEnvelope | undefined;
  try {
    envelope = JSON.parse(text) as ErrorEnvelope;
  } catch {
    envelope = undefined;
  }
  const error = envelope?.error;
  const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
  return new ApiError({
    status: response.status,
    code: typeof error?.code === 'string' ? error.code : `http_${response.status}`,
    message: typeof error?.message === 'string' ? error.message : `HTTP ${response.status} ${response.statusText}`.trim(),
    param: typeof error?.param === 'string' ? error.param : undefined,
    details: error?.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : undefined,
    requestId: typeof envelope?.request_id === 'string' ? envelope.request_id : (response.headers.get('x-request-id') ?? undefined),
    retryAfterSeconds,
    attempts,
  });
}

/**
 * JSON over fetch with a deadline on every attempt and bounded retries:
 * - 429 is retried for every method (the request was refused before it ran), after Retry-After.
 * - 503, 502, 504 and lost connections are retried only when repeating is harmless: GET/PUT/DELETE, or a
 *   write that carries an Idempotency-Key (the same key on every attempt, so it runs at most once).
 * - 409 `idempotency_key_in_progress` (our earlier attempt is still running) is retried with the same key.
 * Attempts stop at `maxAttempts`, and no wait starts that would end past `retryBudgetMs`.
 */
export class Transport {
  private readonly baseUrl: string;
  private readonly options: Required<Omit<TransportOptions, 'onRetry' | 'baseUrl'>> & Pick<TransportOptions, 'onRetry'>;

  constructor(options: TransportOptions) {
    if (!options.baseUrl) throw new Error('baseUrl is required');
    if (!options.apiKey) throw new Error('apiKey is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.options = {
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxAttempts: Math.max(1, options.maxAttempts ?? 4),
      retryBudgetMs: options.retryBudgetMs ?? 60_000,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 250,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      sleep: options.sleep ?? abortableSleep,
      onRetry: options.onRetry,
      userAgent: options.userAgent ?? `mtx-client/${clientVersion} node/${process.versions.node}`,
    };
  }

  url(path: string, query?: RequestSpec['query']): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const each of value) url.searchParams.append(name, String(each));
      else url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.options.maxRetryDelayMs, this.options.retryBaseDelayMs * 2 ** (attempt - 1));
    // Full jitter spreads the retries of many clients that failed together.
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    const { method, path } = spec;
    const repeatable = method === 'GET' || method === 'PUT' || method === 'DELETE' || spec.idempotencyKey !== undefined;
    const maxAttempts = Math.max(1, spec.maxAttempts ?? this.options.maxAttempts);
    const startedMs = Date.now();
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (spec.idempotencyKey !== undefined) headers['idempotency-key'] = spec.idempotencyKey;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const url = this.url(path, spec.query);

    for (let attempt = 1; ; attempt++) {
      let retry: { delayMs: number; reason: string } | undefined;
      let failure: Error;
      const deadline = AbortSignal.timeout(spec.timeoutMs ?? this.options.timeoutMs);
      const signal = spec.signal ? AbortSignal.any([spec.signal, deadline]) : deadline;
      try {
        const response = await this.options.fetch(url, { method, headers, body, signal });
        const text = await response.text();
        if (response.ok) {
          if (text === '') return undefined as T;
          try {
            return JSON.parse(text) as T;
          } catch {
            throw new ApiError({
              status: response.status,
              code: 'invalid_response',
              message: 'the response body is not JSON',
              requestId: response.headers.get('x-request-id') ?? undefined,
              attempts: attempt,
            });
          }
        }
        const error = apiErrorFrom(response, text, attempt);
        failure = error;
        const serverDelayMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
        if (response.status === 429) retry = { delayMs: serverDelayMs ?? this.backoffMs(attempt), reason: 'status 429' };
        else if ((response.status === 503 || response.status === 502 || response.status === 504) && repeatable)
          retry = { delayMs: serverDelayMs ?? this.backoffMs(attempt), reason: `status ${response.status}` };
        else if (error.code === 'idempotency_key_in_progress' && spec.idempotencyKey !== undefined)
          retry = { delayMs: serverDelayMs ?? this.backoffMs(attempt), reason: 'idempotency_key_in_progress' };
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (spec.signal?.aborted) throw spec.signal.reason;
        const timedOut = deadline.aborted;
        failure = new ApiConnectionError({ method, path, timedOut, attempts: attempt, cause: error });
        if (repeatable) retry = { delayMs: this.backoffMs(attempt), reason: timedOut ? 'timeout' : 'network' };
      }
      const elapsedMs = Date.now() - startedMs;
      if (
        !retry ||
        attempt >= maxAttempts ||
        retry.delayMs > this.options.maxRetryDelayMs ||
        elapsedMs + retry.delayMs > this.options.retryBudgetMs
      )
        throw failure;
      this.options.onRetry?.({ method, path, attempt, delayMs: retry.delayMs, reason: retry.reason, idempotencyKey: spec.idempotencyKey });
      await this.options.sleep(retry.delayMs, spec.signal);
    }
  }
}
