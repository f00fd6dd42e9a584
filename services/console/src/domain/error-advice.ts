import type { ApiError } from '../api/client';

/** What to do about an API error, by its code (the API says to branch on the code, never on the message). */
const adviceByCode: Record<string, string> = {
  unauthenticated: 'The key was not accepted: it may be mistyped or revoked. Sign out and paste a current key.',
  forbidden: 'This is a read-only key (rk_…). Sign in with the full key (sk_…) to make changes.',
  rate_limited: 'Too many requests in the last minute.',
  unavailable: 'A backing service is down or slow. Try again shortly; a batch sent with the same Idempotency-Key is never sent twice.',
  timeout: 'No answer before the deadline. Check the result (batch history) before trying again.',
  network: 'The API could not be reached. Check the connection and try again.',
  insufficient_balance: 'The balance cannot pay for this. Top up the wallet first.',
  balance_cap_exceeded: 'The balance may not exceed EUR 1,000. Choose a smaller amount.',
  amount_out_of_range: 'A top-up is between EUR 10.00 and EUR 500.00.',
  too_many_legs: 'A batch holds at most 20 legs. Split it in two.',
  too_many_accounts: 'At most 20 accounts per request. Narrow the selection.',
  unknown_account: 'One of the accounts is not yours (or was deleted). Reload the accounts and pick again.',
  accounts_unreachable: 'Some accounts have no terminal connected; nothing was sent. Wait for them to connect, or leave them out.',
  idempotency_key_reused: 'This submission changed after it was first sent. Submit it again as a new request.',
  idempotency_key_in_progress: 'The same request is still running. Wait a moment and look at the batch history.',
  not_found: 'It no longer exists, or belongs to another customer.',
  conflict: 'It is in a state that does not allow this change. Reload and try again.',
  invalid_request: 'Correct the field named above and send again.',
  unknown_field: 'The console sent a field the API does not accept; reload the page (a newer console may be available).',
  internal: 'An unexpected error on the server. Quote the request id to support.',
};

export interface ErrorExplanation {
  title: string;
  detail: string;
  advice: string;
  requestId?: string;
}

export function explainError(action: string, error: unknown): ErrorExplanation {
  const apiError = error as Partial<ApiError>;
  if (typeof apiError.code !== 'string')
    return { title: `${action} failed`, detail: String((error as Error)?.message ?? error), advice: 'Try again.' };
  let advice = adviceByCode[apiError.code] ?? 'Try again; if it persists, quote the request id to support.';
  if (apiError.retryAfterSeconds !== undefined) advice = `${advice} Retry in ${apiError.retryAfterSeconds} s.`;
  const field = apiError.param ? ` (field: ${apiError.param})` : '';
  return {
    title: `${action} failed`,
    detail: `${apiError.message}${field}`,
    advice,
    requestId: apiError.requestId,
  };
}
