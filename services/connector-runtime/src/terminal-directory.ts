import type { KV, NatsConnection } from 'nats';
import { decodeRegistryEntry, terminalRegistryKey } from '@mtx/shared/connector/terminal-registry';
import { explainReplicaRefusal } from '@mtx/shared/jetstream-replicas';
import type { Platform } from './bridge/frames';
import type { TerminalDirectory, TerminalRegistration } from './bridge/terminal-admission';

/**
 * The terminals a connector admits, read from the terminal registry (a JetStream key-value bucket that execution
 * writes; services/shared/src/connector/terminal-registry.ts). A missing, deleted or undecodable entry, or one
 * of another platform, is "not registered": a foreign write is never trusted.
 */
export class RegistryDirectory implements TerminalDirectory {
  constructor(private readonly kv: Pick<KV, 'get'>) {}

  /** Opens (or creates) the bucket; `lookupDeadlineMs` bounds each read. */
  static async open(
    nats: NatsConnection,
    options: { bucket: string; replicas: number; lookupDeadlineMs: number },
  ): Promise<RegistryDirectory> {
    try {
      const kv = await nats
        .jetstream({ timeout: options.lookupDeadlineMs })
        .views.kv(options.bucket, { history: 1, replicas: options.replicas });
      return new RegistryDirectory(kv);
    } catch (error) {
      throw explainReplicaRefusal(error, 'TERMINAL_REGISTRY_REPLICAS', options.replicas);
    }
  }

  async lookup(identity: {
    platform: Platform;
    login: number;
    server: string;
    tokenDigest: Uint8Array;
  }): Promise<TerminalRegistration | null> {
    const key = terminalRegistryKey(identity.platform, identity.login, identity.server, Buffer.from(identity.tokenDigest).toString('hex'));
    const entry = await this.kv.get(key);
    if (entry?.operation !== 'PUT') return null;
    const registered = decodeRegistryEntry(entry.value);
    if (!registered || registered.platform !== identity.platform) return null;
    return {
      accountId: registered.account_id,
      tokenDigest: Buffer.from(registered.token_sha256, 'hex'),
      login: registered.login,
      server: registered.server,
    };
  }
}
