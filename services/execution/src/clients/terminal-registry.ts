import type { KV, NatsConnection } from 'nats';
import { explainReplicaRefusal } from '@mtx/shared/jetstream-replicas';
import { encodeRegistryEntry, registryKeyOf, type TerminalRegistryEntry } from '@mtx/shared/connector/terminal-registry';

/** Deadline of each call to the bucket (JetStream answers within milliseconds when it is up). */
const registryCallTimeoutMs = 5_000;

/**
 * Execution's side of the terminal registry (services/shared/src/connector/terminal-registry.ts): the entry of
 * an account is written before a host is asked to start its terminal (so the connector knows the EA's token by
 * the time it says hello) and deleted when the account is disconnected or its start failed.
 */
export class TerminalRegistryWriter {
  private constructor(private readonly kv: KV) {}

  /**
   * Opens (or creates) the bucket with `replicas` copies. A count the deployment cannot hold refuses the start
   * with TERMINAL_REGISTRY_REPLICAS named.
   */
  static async open(connection: NatsConnection, options: { bucket: string; replicas: number }): Promise<TerminalRegistryWriter> {
    try {
      const kv = await connection
        .jetstream({ timeout: registryCallTimeoutMs })
        .views.kv(options.bucket, { history: 1, replicas: options.replicas });
      return new TerminalRegistryWriter(kv);
    } catch (error) {
      throw explainReplicaRefusal(error, 'TERMINAL_REGISTRY_REPLICAS', options.replicas);
    }
  }

  async put(entry: TerminalRegistryEntry): Promise<void> {
    await this.kv.put(registryKeyOf(entry), encodeRegistryEntry(entry));
  }

  /** Forgets the terminal: a connector refuses its EA from now on (`unknown_login`). */
  async delete(entry: TerminalRegistryEntry): Promise<void> {
    await this.kv.delete(registryKeyOf(entry));
  }
}
