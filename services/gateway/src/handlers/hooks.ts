import type { GatewayApp, GatewayDependencies } from '../app';

export async function registerHooksRoutes(_app: GatewayApp, _dependencies: GatewayDependencies): Promise<void> {
  // Routes land with their issue.
}
