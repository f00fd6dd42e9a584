import fs from 'node:fs';
import type { ConnectorConfig } from '../config';
import type { TerminalServerSettings } from './terminal-server';

/** Time a closing side leaves the terminal to close its end after the last frame, before destroying the socket. */
const closeWaitMs = 2_000;

/** The terminal listener's settings from the connector's configuration; reads the TLS files when they are set. */
export function terminalServerSettings(config: ConnectorConfig): TerminalServerSettings {
  const keyFile = config.TERMINAL_TLS_KEY_FILE;
  const certFile = config.TERMINAL_TLS_CERT_FILE;
  if (Boolean(keyFile) !== Boolean(certFile)) throw new Error('TERMINAL_TLS_KEY_FILE and TERMINAL_TLS_CERT_FILE are set together');
  const settings: TerminalServerSettings = {
    host: config.TERMINAL_LISTEN_HOST,
    port: config.TERMINAL_LISTEN_PORT,
    maxConnections: config.TERMINAL_CONNECTIONS_MAX,
    helloDeadlineMs: config.TERMINAL_HELLO_DEADLINE_MS,
    heartbeatMs: config.TERMINAL_HEARTBEAT_MS,
    idleMs: config.TERMINAL_IDLE_MS,
    maxInFlight: config.TERMINAL_INFLIGHT_MAX,
    maxQueued: config.TERMINAL_QUEUE_MAX,
    maxFrameBytes: config.TERMINAL_FRAME_MAX_BYTES,
    lookupDeadlineMs: config.TERMINAL_LOOKUP_DEADLINE_MS,
    latencyAllowanceMs: config.TERMINAL_LATENCY_ALLOWANCE_MS,
    closeWaitMs,
  };
  if (keyFile && certFile) settings.tls = { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) };
  return settings;
}
