import { Type, type Static } from '@sinclair/typebox';
import { baseConfigProperties, metricsPortProperty, loadConfig } from '@mtx/shared/config';
import { terminalRegistryBucketDefault } from '@mtx/shared/connector/terminal-registry';

export function connectorConfigSchema(platform: 'mt4' | 'mt5') {
  return Type.Object({
    ...baseConfigProperties,
    HEALTH_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: platform === 'mt4' ? 50070 : 50071 }),
    /** The operations listener: metrics, never published (see metricsPortProperty). */
    METRICS_PORT: metricsPortProperty(platform === 'mt4' ? 9470 : 9471),
    HOST: Type.String({ default: '0.0.0.0' }),
    /** First token of the terminal subjects (`<root>.<platform>.<account_id>.<op>`); tests use their own. */
    TERMINAL_SUBJECT_ROOT: Type.String({ default: 'term', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }),
    /** NATS queue group; replicas with the same group share the load. */
    CONNECTOR_QUEUE_GROUP: Type.String({ default: `connector-${platform}` }),
    /** JetStream key-value bucket holding client-id claims (shared by every connector replica). */
    CONNECTOR_CLAIMS_BUCKET: Type.String({ default: 'connector_claims', pattern: '^[A-Za-z0-9_-]+$' }),
    CONNECTOR_CLAIM_TTL_MS: Type.Integer({ minimum: 60_000, default: 24 * 60 * 60_000 }),
    /**
     * How long a message waits for the claims bucket when JetStream cannot take the claim yet (a stream electing
     * a new leader after its server died takes 4 to 9 s); capped by the request's deadline less 1 s for the send.
     */
    CONNECTOR_CLAIM_WAIT_MS: Type.Integer({ minimum: 0, default: 4_000 }),
    /** Copies of the claims bucket: 1 on a single nats-server, 3 on a 3-node cluster (no claim lost with a node). */
    CONNECTOR_CLAIMS_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
    /**
     * Deadline of one trade call to a terminal (a slow broker may answer after the requester gave up); a trade
     * is never given longer than its request's own deadline, so that "not found after the deadline" still means
     * "never executed" (docs/terminal-bridge.md, "Requests in flight when a connection drops").
     */
    BROKER_CALL_DEADLINE_MS: Type.Integer({ minimum: 100, default: 30_000 }),
    /** Deadline of reads from a terminal (lists, lookups, symbol details, account figures). */
    BROKER_READ_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
    /**
     * Address the terminal listener binds (EAs dial in, docs/terminal-bridge.md). Any address other than loopback
     * (`127.0.0.1`, `::1`, `localhost`) needs TERMINAL_TLS_KEY_FILE and TERMINAL_TLS_CERT_FILE.
     */
    TERMINAL_LISTEN_HOST: Type.String({ default: '127.0.0.1' }),
    /** Port of the terminal listener. */
    TERMINAL_LISTEN_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: platform === 'mt4' ? 50080 : 50081 }),
    /** PEM private key of the terminal listener's TLS certificate; empty: plain TCP, loopback only. */
    TERMINAL_TLS_KEY_FILE: Type.String({ default: '' }),
    /** PEM certificate (chain) the EAs verify against the host name they dial; empty: plain TCP, loopback only. */
    TERMINAL_TLS_CERT_FILE: Type.String({ default: '' }),
    /** Terminal connections held at once; the listener refuses more. */
    TERMINAL_CONNECTIONS_MAX: Type.Integer({ minimum: 1, default: 10_000 }),
    /** A connection that has not delivered its `hello` this long after the accept (TLS included) is closed. */
    TERMINAL_HELLO_DEADLINE_MS: Type.Integer({ minimum: 100, default: 10_000 }),
    /** `hb_ms` in `welcome`: either side sends a heartbeat after this long without sending anything. */
    TERMINAL_HEARTBEAT_MS: Type.Integer({ minimum: 1_000, maximum: 60_000, default: 10_000 }),
    /** `idle_ms` in `welcome`: a terminal silent this long gets `bye reason=idle` and is closed. */
    TERMINAL_IDLE_MS: Type.Integer({ minimum: 3_000, maximum: 180_000, default: 30_000 }),
    /** `max_inflight` in `welcome`: unanswered requests per terminal; further calls wait in the queue below. */
    TERMINAL_INFLIGHT_MAX: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
    /**
     * Calls waiting per terminal for an in-flight slot; beyond it a call fails `unavailable` and sends nothing. A
     * terminal carries out one trade at a time, so a burst of batches on one account (up to 20 legs each) waits
     * here; each call waits no longer than its request's deadline, so the queue drains by itself.
     */
    TERMINAL_QUEUE_MAX: Type.Integer({ minimum: 0, default: 1_000 }),
    /** Largest frame accepted from a terminal, LF included; a longer line closes that connection. */
    TERMINAL_FRAME_MAX_BYTES: Type.Integer({ minimum: 1_024, maximum: 1_048_576, default: 1_048_576 }),
    /** JetStream key-value bucket of the terminal registry (which account each terminal trades, its token's digest). */
    TERMINAL_REGISTRY_BUCKET: Type.String({ default: terminalRegistryBucketDefault, pattern: '^[A-Za-z0-9_-]+$' }),
    /** Copies of the terminal registry bucket when this connector creates it: 1 on a single nats-server, 3 on a cluster. */
    TERMINAL_REGISTRY_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
    /** Deadline of the terminal directory's lookup during a hello; past it the terminal is refused `unavailable`. */
    TERMINAL_LOOKUP_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
    /** One-way trip allowed for a request: a trade request's `ttl_ms` is its time left less this. */
    TERMINAL_LATENCY_ALLOWANCE_MS: Type.Integer({ minimum: 0, default: 250 }),
    /** Requests handled at once; beyond it the connector answers 503 at once and sends nothing. */
    CONNECTOR_CONCURRENCY_MAX: Type.Integer({ minimum: 1, default: 2_000 }),
    /** Closes per account and request; matches beyond it come back skipped. */
    CONNECTOR_CLOSES_PER_ACCOUNT_MAX: Type.Integer({ minimum: 1, default: 20 }),
    /** Deviation allowed when a market order names a price but no slippage. */
    CONNECTOR_DEFAULT_SLIPPAGE_POINTS: Type.Integer({ minimum: 0, default: 20 }),
  });
}

export type ConnectorConfig = Static<ReturnType<typeof connectorConfigSchema>>;

export function loadConnectorConfig(platform: 'mt4' | 'mt5', environment: NodeJS.ProcessEnv = process.env): ConnectorConfig {
  return loadConfig(connectorConfigSchema(platform), environment);
}
