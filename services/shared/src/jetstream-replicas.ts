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
