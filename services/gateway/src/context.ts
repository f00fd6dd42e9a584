import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { BillingServiceDefinition } from '@mtx/shared/generated/proto/mtx/billing/v1/BillingService';
import type { ExecutionServiceDefinition } from '@mtx/shared/generated/proto/mtx/execution/v1/ExecutionService';
import type { NotificationsServiceDefinition } from '@mtx/shared/generated/proto/mtx/notifications/v1/NotificationsService';
import type { PaymentsServiceDefinition } from '@mtx/shared/generated/proto/mtx/payments/v1/PaymentsService';
import type { WalletServiceDefinition } from '@mtx/shared/generated/proto/mtx/wallet/v1/WalletService';
import type { ServiceClient } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import type { GatewayConfig } from './config';
import type { AuthFailureLimiter } from './domain/auth-failures';
import type { Authenticator, Principal } from './app/authenticator';
import type { Idempotency } from './app/idempotency';
import type { RateLimiter } from './app/rate-limiter';
import type { FreshCache } from '@mtx/shared/fresh-cache';
import type { SubscriptionBody } from './handlers/subscription-schemas';
import type { WalletAnswer } from './handlers/wallet-schemas';
import type { SerializedAnswer } from './handlers/serialized-answer';
import type { GatewayStore } from './store/gateway-store';

/**
 * What the gateway's parts share: its dependencies, the route options its hooks read, and the principal of a
 * request. A leaf: it imports no handler and no app code, so the app can import the handlers and the handlers
 * this, without a cycle.
 */

export interface BackendClients {
  wallet: ServiceClient<WalletServiceDefinition>;
  payments: ServiceClient<PaymentsServiceDefinition>;
  billing: ServiceClient<BillingServiceDefinition>;
  execution: ServiceClient<ExecutionServiceDefinition>;
  notifications: ServiceClient<NotificationsServiceDefinition>;
}

export interface GatewayDependencies {
  config: GatewayConfig;
  logger: Logger;
  clock: Clock;
  store: GatewayStore;
  clients: BackendClients;
  authenticator: Authenticator;
  /** Failed authentications per client address (this replica's memory). */
  authFailures: AuthFailureLimiter;
  rateLimiter: RateLimiter;
  idempotency: Idempotency;
  /** Composed answers of read routes, per customer, invalidated by the backends' announcements. */
  readModels: { wallet: FreshCache<SerializedAnswer<WalletAnswer>>; subscription: FreshCache<SerializedAnswer<SubscriptionBody>> };
  /** Whether each backend (store, gRPC services) is reachable: by name on the operations listener's /readyz, as ok or not on the public /healthz. */
  readiness: () => Promise<Record<string, boolean>>;
}

export type AuthMode = 'public' | 'key';
export type RateLimitBucket = 'execution' | 'other' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `public`: no key (health, docs, provider postbacks). Otherwise GET takes any key, writes a full key. */
    auth?: AuthMode;
    rateLimit?: RateLimitBucket;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export type GatewayApp = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger, TypeBoxTypeProvider>;

/** The customer behind the request; only routes with key auth call it. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthenticated', 'missing API key');
  return request.principal;
}
