import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { AppError } from '@mtx/shared/errors';
import { inSpan, meter } from '@mtx/shared/telemetry';
import type { Topups } from '../app/topups';

const paymentsMeter = meter('payments');
const postbacks = paymentsMeter.createCounter('mtx.payments.postbacks', { description: 'Provider postbacks by provider and outcome' });
const signatureFailures = paymentsMeter.createCounter('mtx.payments.postback.signature_failures', {
  description:
    'Postbacks refused because the signature was missing, wrong or outside the replay window (an attack, or a secret out of step)',
});

/** gRPC adapter of mtx.payments.v1.PaymentsService: transport only. */
export function paymentsGrpcImplementation(topups: Topups, logger: Logger): grpc.UntypedServiceImplementation {
  return unaryHandlers(
    {
      ListAssets: async (request: { amount_eur_cents: number }) => ({ assets: await topups.listAssets(request.amount_eur_cents) }),
      CreateTopup: async (request: {
        customer_id: string;
        amount_eur_cents: number;
        asset_code: string;
        blockchain_code: string;
        is_evm?: boolean;
      }) =>
        topups.createTopup({
          customerId: request.customer_id,
          amountEurCents: request.amount_eur_cents,
          assetCode: request.asset_code,
          blockchainCode: request.blockchain_code,
          isEvm: request.is_evm,
        }),
      GetTopup: async (request: { customer_id: string; id: number }) => topups.getTopup(request.customer_id, request.id),
      ListPendingTopups: async (request: { customer_id: string }) => ({ topups: await topups.listPendingTopups(request.customer_id) }),
      HandlePostback: async (request: { provider: string; body: Buffer; headers: Record<string, string> }) =>
        // The span carries the provider and the outcome only: never the body, headers or signature.
        inSpan('payments', 'payments.postback', { 'mtx.provider': request.provider }, async (span) => {
          try {
            const outcome = await topups.handlePostback(request.provider, Buffer.from(request.body ?? []), request.headers ?? {});
            const label = String((outcome as { outcome?: unknown }).outcome ?? 'handled');
            span.setAttribute('mtx.outcome', label);
            postbacks.add(1, { 'mtx.provider': request.provider, 'mtx.outcome': label });
            return outcome;
          } catch (error) {
            if (error instanceof AppError && error.code === 'unauthenticated')
              signatureFailures.add(1, { 'mtx.provider': request.provider });
            postbacks.add(1, { 'mtx.provider': request.provider, 'mtx.outcome': error instanceof AppError ? error.code : 'failed' });
            throw error;
          }
        }),
    },
    logger,
  );
}
