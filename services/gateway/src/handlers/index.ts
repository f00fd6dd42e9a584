import type { GatewayApp, GatewayDependencies } from '../context';
import { ErrorEnvelope } from './schemas';
import { registerAccountSettingsRoutes } from './account-settings';
import { registerAccountsRoutes } from './accounts';
import { registerDocsRoutes } from './docs';
import { registerHooksRoutes } from './hooks';
import { registerHistoryRoutes } from './history';
import { registerModifyRoute } from './orders-modify';
import { registerOrdersRoutes } from './orders';
import { registerPortfolioRoutes } from './portfolio';
import { registerServersRoutes } from './servers';
import { registerSubscriptionRoutes } from './subscription';
import { registerSystemRoutes } from './system';
import { registerWalletRoutes } from './wallet';
import { registerWebhookRoutes } from './webhooks';

export async function registerRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  app.addSchema(ErrorEnvelope);
  await registerSystemRoutes(app, dependencies);
  await registerWalletRoutes(app, dependencies);
  await registerHooksRoutes(app, dependencies);
  await registerSubscriptionRoutes(app, dependencies);
  await registerServersRoutes(app, dependencies);
  await registerAccountsRoutes(app, dependencies);
  await registerAccountSettingsRoutes(app, dependencies);
  await registerOrdersRoutes(app, dependencies);
  await registerModifyRoute(app, dependencies);
  await registerPortfolioRoutes(app, dependencies);
  await registerHistoryRoutes(app, dependencies);
  await registerWebhookRoutes(app, dependencies);
  await registerDocsRoutes(app, dependencies);
}
