/**
 * The console's only way to the API: same-origin fetch with the person's key in the Authorization header (never
 * in a URL), a deadline on every call, and the error envelope turned into an ApiError.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | undefined,
    readonly requestId: string | undefined,
    /** Seconds until a retry may pass (429 and 503 carry Retry-After). */
    readonly retryAfterSeconds: number | undefined,
    readonly details: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | undefined | Array<string>>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  idempotencyKey?: string;
  deadlineMs?: number;
}

const defaultDeadlineMs = 15_000;
/** A batch waits for every terminal's answer; the gateway's own deadline is shorter than this. */
export const batchDeadlineMs = 60_000;

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    for (const each of Array.isArray(value) ? value : [value]) search.append(name, String(each));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export class ApiClient {
  constructor(private readonly key: string) {}

  /** `rk_` keys may call every GET and nothing else (the API's documented rule). */
  get readOnly(): boolean {
    return this.key.startsWith('rk_');
  }

  async request<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`${path}${queryString(options.query)}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(options.deadlineMs ?? defaultDeadlineMs),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new ApiError(0, timedOut ? 'timeout' : 'network', (error as Error).message, undefined, undefined, undefined, undefined);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (response.ok) return body as T;
    const envelope =
      (body as { error?: { code?: string; message?: string; param?: string; details?: Record<string, unknown> }; request_id?: string }) ??
      {};
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(
      response.status,
      envelope.error?.code ?? `http_${response.status}`,
      envelope.error?.message ?? (response.statusText || 'the server answered without an explanation'),
      envelope.error?.param,
      envelope.request_id ?? response.headers.get('x-request-id') ?? undefined,
      Number.isFinite(retryAfter) && response.headers.has('retry-after') ? retryAfter : undefined,
      envelope.error?.details,
    );
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }
}
