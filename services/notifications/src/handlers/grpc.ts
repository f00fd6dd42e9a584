import { AppError } from '@mtx/shared/errors';
import type { NotificationsServiceDefinition } from '@mtx/shared/generated/proto/mtx/notifications/v1/NotificationsService';
import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import type { Endpoints } from '../app/endpoints';
import type { EventLog } from '../app/event-log';
import type { TestSender } from '../app/test-send';

const listLimitDefault = 10;
const listLimitMax = 100;

function requireCustomer(request: { customer_id?: string }): string {
  if (!request.customer_id) throw new AppError('invalid_request', 'customer_id is required', { param: 'customer_id' });
  return request.customer_id;
}

/** gRPC adapter of the notifications service: transport only. */
export function createNotificationsGrpcImplementation(
  { endpoints, events, tests, retentionMs }: { endpoints: Endpoints; events: EventLog; tests: TestSender; retentionMs: number },
  logger: Logger,
): grpc.UntypedServiceImplementation {
  return unaryHandlers<NotificationsServiceDefinition>(
    {
      CreateEndpoint: async (request) =>
        endpoints.create(requireCustomer(request), {
          url: request.url ?? '',
          enabled_events: request.enabled_events ?? [],
          description: request.description ?? '',
        }),
      ListEndpoints: async (request) => ({ data: await endpoints.list(requireCustomer(request)), has_more: false }),
      DeleteEndpoint: async (request) => endpoints.delete(requireCustomer(request), request.endpoint_id),
      TestEndpoint: async (request) => tests.send(requireCustomer(request), request.endpoint_id),
      ListEvents: async (request) => {
        const limit = request.limit || listLimitDefault;
        if (limit < 1 || limit > listLimitMax)
          throw new AppError('invalid_request', `limit must be between 1 and ${listLimitMax}`, { param: 'limit' });
        const page = await events.list(requireCustomer(request), {
          limit,
          ...(request.starting_after ? { startingAfter: request.starting_after } : {}),
          ...(request.type ? { type: request.type } : {}),
          retentionMs,
        });
        return {
          data: page.data.map((event) => ({
            id: event.id,
            type: event.type,
            created: event.created,
            data_json: JSON.stringify(event.data),
          })),
          has_more: page.has_more,
        };
      },
    },
    logger,
  );
}
