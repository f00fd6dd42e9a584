import { AppError } from '@mtx/shared/errors';
import { unaryHandlers, type grpc } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { type Broker, BrokerError } from '../app/broker';
import { renderServer } from './renderers';

export { renderServer } from './renderers';

function toAppError(error: unknown): unknown {
  if (!(error instanceof BrokerError)) return error;
  const code = (
    {
      not_found: 'not_found',
      unauthenticated: 'unauthenticated',
      unavailable: 'unavailable',
      invalid: 'invalid_request',
      conflict: 'conflict',
      wrong_platform: 'invalid_request',
    } as const
  )[error.kind];
  return new AppError(code, error.message);
}

/**
 * The broker-sim gRPC service: the trade servers' descriptions. Terminals reach broker-sim's accounts only
 * through the emulated terminals it hosts (src/handlers/terminal-host.ts).
 */
export function createBrokerSimGrpcImplementation(broker: Broker, logger: Logger): grpc.UntypedServiceImplementation {
  const wrap =
    <TRequest>(handler: (request: TRequest) => unknown) =>
    async (request: TRequest) => {
      try {
        return await handler(request);
      } catch (error) {
        throw toAppError(error);
      }
    };
  return unaryHandlers(
    {
      ListServers: wrap(() => ({ servers: broker.listServers().map(renderServer) })),
      GetServerInfo: wrap((request: { server: string }) => renderServer(broker.serverInfo(request.server))),
    },
    logger,
  );
}
