import { AppError } from '@mtx/shared/errors';
import { createCounter, instruments } from '@mtx/shared/instruments';
import { inSpan } from '@mtx/shared/telemetry';
import type { PostbackOutcome, Topups } from '../app/topups';

const postbacks = createCounter(instruments.paymentsPostbacks);
const signatureFailures = createCounter(instruments.paymentsSignatureFailures);
const providerFailures = createCounter(instruments.paymentsProviderFailures);

/**
 * A postback handled in one span, counted by outcome, whichever transport brought it (payments' own hook
 * listener, or the gateway over gRPC). The span carries the provider and the outcome only: never the body,
 * headers or signature.
 */
export function handleObservedPostback(
  topups: Topups,
  provider: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<PostbackOutcome> {
  return inSpan('payments', 'payments.postback', { 'mtx.provider': provider }, async (span) => {
    try {
      const outcome = await topups.handlePostback(provider, body, headers);
      span.setAttribute('mtx.outcome', outcome.outcome);
      postbacks.add(1, { 'mtx.provider': provider, 'mtx.outcome': outcome.outcome });
      if (outcome.provider_failure) providerFailures.add(1, { 'mtx.provider': provider, 'mtx.provider_status': outcome.provider_failure });
      return outcome;
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthenticated') signatureFailures.add(1, { 'mtx.provider': provider });
      postbacks.add(1, { 'mtx.provider': provider, 'mtx.outcome': error instanceof AppError ? error.code : 'failed' });
      throw error;
    }
  });
}
