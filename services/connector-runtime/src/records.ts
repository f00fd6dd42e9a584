import { context, type Context } from '@opentelemetry/api';
import type {
  LookupEntryMessage,
  LookupReplyMessage,
  LookupRequestMessage,
  PingReplyMessage,
  PingRequestMessage,
} from '@mtx/shared/connector/messages';
import { BrokerCallError, TerminalLoginError } from './broker-client';
import { entryOf } from './results';
import type { ConnectorRuntimeOptions } from './runtime-context';

/** What a terminal reads without trading: the trade server's records by client id (reconciliation), and liveness. */
export class Records {
  constructor(private readonly options: ConnectorRuntimeOptions) {}

  async lookup(request: LookupRequestMessage, traceContext: Context = context.active()): Promise<LookupReplyMessage> {
    try {
      const records = await this.options.sessions.withSession(
        request.account_id,
        request.credentials,
        (session) =>
          this.options.adapter.lookup(session, request.client_ids, request.client_id_prefix, this.options.config.BROKER_READ_DEADLINE_MS),
        traceContext,
      );
      const byId = new Map(records.map((record) => [record.clientId, record]));
      const entries: LookupEntryMessage[] = request.client_ids.map((clientId) => {
        const record = byId.get(clientId);
        return record ? entryOf(record) : { client_id: clientId, state: 'not_found', action: '' };
      });
      for (const record of records) if (!request.client_ids.includes(record.clientId)) entries.push(entryOf(record));
      return { account_id: request.account_id, connected: true, message: '', entries };
    } catch (error) {
      if (error instanceof TerminalLoginError || error instanceof BrokerCallError)
        return { account_id: request.account_id, connected: false, message: error.message, entries: [] };
      throw error;
    }
  }

  async ping(request: PingRequestMessage, traceContext: Context = context.active()): Promise<PingReplyMessage> {
    const startedMs = Date.now();
    const base = { server: request.credentials.server, platform: this.options.platform, symbol_suffix: '', margin_mode: '' };
    try {
      const session = await this.options.sessions.withSession(
        request.account_id,
        request.credentials,
        async (current) => {
          await this.options.adapter.ping(current, this.options.config.BROKER_READ_DEADLINE_MS);
          return current;
        },
        traceContext,
      );
      return {
        ...base,
        connected: true,
        latency_ms: Date.now() - startedMs,
        symbol_suffix: session.server.symbol_suffix,
        margin_mode: session.marginMode,
        server: session.server.name,
        message: '',
        reason: '',
      };
    } catch (error) {
      if (error instanceof TerminalLoginError)
        return { ...base, connected: false, latency_ms: Date.now() - startedMs, message: error.message, reason: error.reason };
      if (error instanceof BrokerCallError)
        return { ...base, connected: false, latency_ms: Date.now() - startedMs, message: error.message, reason: 'no_connection' };
      throw error;
    }
  }
}
