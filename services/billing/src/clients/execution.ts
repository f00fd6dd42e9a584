import { AppError } from '@mtx/shared/errors';
import type { ExecutionServiceDefinition } from '@mtx/shared/generated/proto/mtx/execution/v1/ExecutionService';
import type { ServiceClient } from '@mtx/shared/grpc';
import type { ExecutionPort } from '../domain/ports';

/** The execution port over execution's gRPC service, each call within `deadlineMs`. */
export function executionPortFromClient(client: ServiceClient<ExecutionServiceDefinition>, deadlineMs: number): ExecutionPort {
  return {
    async setAccountBillingStatus(customerId, accountId, status) {
      try {
        await client.call('SetAccountBillingStatus', { customer_id: customerId, account_id: accountId, status }, { deadlineMs });
      } catch (error) {
        // The account was disconnected meanwhile: nothing left to tell.
        if (error instanceof AppError && (error.code === 'not_found' || error.code === 'unknown_account')) return;
        throw error;
      }
    },
  };
}
