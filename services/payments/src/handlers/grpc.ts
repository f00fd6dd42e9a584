import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { handleObservedPostback } from './postbacks';
import type { Topups } from '../app/topups';

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
        handleObservedPostback(topups, request.provider, Buffer.from(request.body ?? []), request.headers ?? {}),
    },
    logger,
  );
}
