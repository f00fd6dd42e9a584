import crypto from 'node:crypto';

/** A database prefix of its own for each test file, so files can share one store without seeing each other. */
export function testDatabasePrefix(label = 't'): string {
  return `${label.replace(/[^a-z0-9]/gi, '').slice(0, 12)}_${crypto.randomBytes(4).toString('hex')}_`;
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, deadlineMs = 10_000, intervalMs = 50): Promise<T> {
  const until = Date.now() + deadlineMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > until)
      throw new Error(`condition not met within ${deadlineMs} ms${lastError ? `: ${(lastError as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export { startTcpProxy, type TcpProxy } from './tcp-proxy';
export { startOtlpReceiver, type ReceivedSpan, type ReceivedMetric } from './otlp-receiver';
export { listenBacklogOf } from './listen-backlog';
export { capturedLogger } from './captured-logger';
export { selfSignedCertificate } from './test-certificate';
