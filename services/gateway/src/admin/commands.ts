import type { ExecutionServiceDefinition } from '@mtx/shared/generated/proto/mtx/execution/v1/ExecutionService';
import type { ServiceClient } from '@mtx/shared/grpc';
import { AppError } from '@mtx/shared/errors';
import type { GatewayStore } from '../store/gateway-store';
import type { NatsConnection } from '@mtx/shared/nats';
import { createCustomer, issueKey, revokeKey } from '../app/customers';
import { announce, announcements } from '@mtx/shared/announcements';
import type { KeyLevel } from '../domain/keys';

export interface DemoAccount {
  id: string;
  platform: 'mt4' | 'mt5';
  server: string;
  symbol_suffix: string;
  login?: string;
}

export interface CreatedCustomer {
  customer_id: string;
  name: string;
  full_key: string;
  read_key: string;
  accounts: DemoAccount[];
}

/** Parses `mt4:2,mt5:2` into counts per platform. */
export function parseAccountSpec(spec: string | undefined): Array<{ platform: 'mt4' | 'mt5'; count: number }> {
  if (!spec) return [];
  return spec.split(',').map((part) => {
    const match = /^(mt4|mt5):(\d{1,2})$/.exec(part.trim());
    if (!match) throw new AppError('invalid_request', `bad --accounts entry "${part}": expected mt4:<n> or mt5:<n>`);
    return { platform: match[1] as 'mt4' | 'mt5', count: Number(match[2]) };
  });
}

/**
 * Connects `count` accounts per platform, spread over the simulated brokers so the demo mixes symbol
 * suffixes. Seats are operator-granted bonus seats, so the demo needs no balance.
 */
export async function connectDemoAccounts(
  execution: ServiceClient<ExecutionServiceDefinition>,
  customerId: string,
  plan: Array<{ platform: 'mt4' | 'mt5'; count: number }>,
): Promise<DemoAccount[]> {
  if (plan.length === 0) return [];
  const { servers } = await execution.call('ListServers', {}, { deadlineMs: 10_000 });
  const accounts: DemoAccount[] = [];
  for (const { platform, count } of plan) {
    const candidates = servers.filter((server) => server.platform === platform);
    if (candidates.length === 0) throw new AppError('unavailable', `no ${platform} trade servers are known to the execution service`);
    for (let index = 0; index < count; index++) {
      const server = candidates[index % candidates.length]!;
      const login = String(10_000_000 + Math.floor(Math.random() * 89_999_999));
      const account = await execution.call(
        'CreateAccount',
        {
          customer_id: customerId,
          platform,
          server: server.name,
          login,
          password: `demo-${login}`,
          label: `${platform.toUpperCase()} demo ${index + 1}`,
          bonus_seat: true,
        },
        { deadlineMs: 15_000 },
      );
      accounts.push({
        id: account.id,
        platform,
        server: account.server,
        symbol_suffix: account.symbol_suffix,
        login: account.login,
      });
    }
  }
  return accounts;
}

export async function createCustomerWithKeys(store: GatewayStore, name: string): Promise<Omit<CreatedCustomer, 'accounts'>> {
  const customer = await createCustomer(store, name);
  const full = await issueKey(store, customer.customer_id, 'full');
  const read = await issueKey(store, customer.customer_id, 'read');
  return { customer_id: customer.customer_id, name: customer.name, full_key: full.key, read_key: read.key };
}

export async function createKey(store: GatewayStore, customerId: string, level: KeyLevel) {
  return issueKey(store, customerId, level);
}

/**
 * Revokes a key in the store, then announces it so every gateway replica forgets the key at once. Without a
 * NATS connection (or if the publish fails) the replicas stop accepting it within API_KEY_CACHE_MS instead:
 * `announced` says which.
 */
export async function revoke(store: GatewayStore, keyOrId: string, nats?: NatsConnection) {
  const revoked = await revokeKey(store, keyOrId);
  let announced = announce(nats, announcements.keyRevoked, { keyId: revoked.key_id, customerId: revoked.customer_id });
  if (announced)
    announced = await nats!.flush().then(
      () => true,
      () => false,
    );
  return { ...revoked, announced };
}
