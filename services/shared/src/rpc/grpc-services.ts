import type { BillingServiceDefinition } from '../generated/proto/mtx/billing/v1/BillingService';
import type { BrokerSimServiceDefinition } from '../generated/proto/mtx/brokersim/v1/BrokerSimService';
import type { ExecutionServiceDefinition } from '../generated/proto/mtx/execution/v1/ExecutionService';
import type { NotificationsServiceDefinition } from '../generated/proto/mtx/notifications/v1/NotificationsService';
import type { PaymentsServiceDefinition } from '../generated/proto/mtx/payments/v1/PaymentsService';
import type { WalletServiceDefinition } from '../generated/proto/mtx/wallet/v1/WalletService';
import { createServiceClient, type ServiceClient } from './grpc';

/** Where each of our gRPC services is declared: its file under proto/ and its full name. The one list. */
export const grpcServices = {
  wallet: { protoFile: 'wallet/v1/wallet.proto', serviceName: 'mtx.wallet.v1.WalletService' },
  payments: { protoFile: 'payments/v1/payments.proto', serviceName: 'mtx.payments.v1.PaymentsService' },
  billing: { protoFile: 'billing/v1/billing.proto', serviceName: 'mtx.billing.v1.BillingService' },
  execution: { protoFile: 'execution/v1/execution.proto', serviceName: 'mtx.execution.v1.ExecutionService' },
  brokerSim: { protoFile: 'brokersim/v1/brokersim.proto', serviceName: 'mtx.brokersim.v1.BrokerSimService' },
  notifications: { protoFile: 'notifications/v1/notifications.proto', serviceName: 'mtx.notifications.v1.NotificationsService' },
} as const;

export interface GrpcServiceDefinitions {
  wallet: WalletServiceDefinition;
  payments: PaymentsServiceDefinition;
  billing: BillingServiceDefinition;
  execution: ExecutionServiceDefinition;
  brokerSim: BrokerSimServiceDefinition;
  notifications: NotificationsServiceDefinition;
}

/** A client of one of our services at `address`, typed by its generated definition, each call within the deadline. */
export function connectService<Name extends keyof GrpcServiceDefinitions>(
  name: Name,
  address: string,
  defaultDeadlineMs?: number,
): ServiceClient<GrpcServiceDefinitions[Name]> {
  const target = grpcServices[name];
  return createServiceClient<GrpcServiceDefinitions[Name]>(target.protoFile, target.serviceName, address, defaultDeadlineMs);
}
