import type { JetStreamManager, StreamConfig } from 'nats';
import type { Logger } from '../telemetry/logger';

/** JetStream's answers to more replicas than it has servers for: no cluster at all, or too few peers. */
const replicasNotSupported = new Set([10074, 10023]);

/**
 * The error to refuse a start with when JetStream refused a stream or bucket for its replica count: it names the
 * setting to change, since the operator reads it at start and nowhere else. Any other error is returned as is.
 */
export function explainReplicaRefusal(error: unknown, setting: string, replicas: number): unknown {
  const apiError = (error as { api_error?: { err_code?: number; description?: string } }).api_error;
  if (apiError?.err_code === undefined || !replicasNotSupported.has(apiError.err_code)) return error;
  return new Error(
    `${setting}=${replicas} is more than this NATS deployment holds (${apiError.description ?? (error as Error).message}): set it to the number of JetStream servers or fewer (1 on a single server)`,
  );
}

const streamNotFound = 10059;

/**
 * Creates a stream when it is missing. One that exists is used as it is (its data outlives a changed setting);
 * a replica count other than the setting's is warned about, and a count the deployment cannot hold refuses the
 * start with the setting named.
 */
export async function ensureStream(
  manager: JetStreamManager,
  config: Partial<StreamConfig> & { name: string; num_replicas: number },
  options: { setting: string; logger: Logger },
): Promise<void> {
  const { name, num_replicas: replicas } = config;
  try {
    const info = await manager.streams.info(name).catch((error: { api_error?: { err_code?: number } }) => {
      if (error.api_error?.err_code === streamNotFound) return undefined;
      throw error;
    });
    if (!info) await manager.streams.add(config);
    else if (info.config.num_replicas !== replicas)
      options.logger.warn(
        { stream: name, replicas: info.config.num_replicas, setting: replicas },
        `the ${name} stream exists with ${info.config.num_replicas} replica(s), not ${options.setting}=${replicas}; it is used as it is`,
      );
  } catch (error) {
    throw explainReplicaRefusal(error, options.setting, replicas);
  }
}
