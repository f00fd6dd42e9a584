import { ErrorCode, headers, type NatsConnection } from 'nats';

/** JetStream's refusal of a create whose subject already holds a message ("wrong last sequence"). */
export const alreadyStoredErrorCode = 10071;

/** A JetStream API error, shaped as nats.js's kv.put reports one: `api_error` from the server, `code` its status. */
export interface JetStreamApiError extends Error {
  code: string;
  api_error?: { code?: number; err_code?: number; description?: string };
}

/** Never mutated after this, so every create sends the same headers object. */
const createOnlyHeaders = headers();
createOnlyHeaders.set('Nats-Expected-Last-Subject-Sequence', '0');
const answerDecoder = new TextDecoder();

/**
 * Stores `data` on `subject` only if the subject holds no message yet (expected last subject sequence 0): of any
 * number of writers racing on one subject, exactly one stores. One plain request: nats.js's js.publish and kv.put
 * go through async layers and parse every acknowledgement into an object (in a connector at c=64 that was half
 * of a claim's cost); here an acknowledgement is only searched for an error, the one case whose JSON is read.
 * Rejects with the request's own NatsError (no responders, timeout) as it comes, and with a JetStreamApiError
 * for a refusal (`api_error.err_code` alreadyStoredErrorCode when the subject was taken).
 */
export async function publishCreateOnly(connection: NatsConnection, subject: string, data: Uint8Array, timeoutMs: number): Promise<void> {
  const reply = await connection.request(subject, data, { timeout: timeoutMs, headers: createOnlyHeaders });
  const answer = Buffer.from(reply.data.buffer, reply.data.byteOffset, reply.data.byteLength);
  if (answer.includes('"seq":') && !answer.includes('"error":')) return;
  let apiError: JetStreamApiError['api_error'];
  try {
    apiError = (JSON.parse(answerDecoder.decode(reply.data)) as { error?: JetStreamApiError['api_error'] }).error;
  } catch {
    // Not JSON: reported below as an answer that is not an acknowledgement.
  }
  throw Object.assign(new Error(apiError?.description ?? `not a JetStream acknowledgement: ${answer.toString('utf8', 0, 200)}`), {
    code: String(apiError?.code ?? ErrorCode.JetStreamInvalidAck),
    api_error: apiError,
  }) satisfies JetStreamApiError;
}

/** Whether `error` is JetStream refusing a create because the subject already holds a message. */
export function isAlreadyStored(error: unknown): boolean {
  return (error as JetStreamApiError | undefined)?.api_error?.err_code === alreadyStoredErrorCode;
}
