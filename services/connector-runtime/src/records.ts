import { context, type Context } from '@opentelemetry/api';
import type {
  LookupEntryMessage,
  LookupReplyMessage,
  LookupRequestMessage,
  PingReplyMessage,
  PingRequestMessage,
} from '@mtx/shared/connector/messages';
import type { BrokerRecord } from './adapter';
import { entryOf } from './results';
import type { ConnectorRuntimeOptions } from './runtime-context';
import { isNothingSent, isOutcomeUnknown, TerminalAnswerError } from './terminal-access';

function isTerminalFailure(error: unknown): error is Error {
  return isNothingSent(error) || isOutcomeUnknown(error) || error instanceof TerminalAnswerError;
}

/**
 * What a terminal reads without trading: the trade server's records by client id (reconciliation, found by the
 * tags their comments carry), and liveness. A client-id prefix cannot be searched by tag (a tag is a hash): it
 * names the closes of a close request whose answer was lost, and those are read from the history in the
 * request's window instead (docs/terminal-bridge.md, "Closes by client-id prefix").
 */
export class Records {
  constructor(private readonly options: ConnectorRuntimeOptions) {}

  async lookup(request: LookupRequestMessage, traceContext: Context = context.active()): Promise<LookupReplyMessage> {
    const { adapter, config } = this.options;
    const prefix = request.client_id_prefix;
    // Without a window a prefix would claim every close in the terminal's history: it finds nothing.
    const byPrefix = prefix !== '' && request.from_unix_ms > 0;
    try {
      const records = await this.options.terminals.withTerminal(
        request.account_id,
        async (terminal) => [
          ...(request.client_ids.length > 0 ? await adapter.lookup(terminal, request.client_ids, config.BROKER_READ_DEADLINE_MS) : []),
          ...(byPrefix ? await adapter.lookupCloses(terminal, prefix, request.from_unix_ms, config.BROKER_READ_DEADLINE_MS) : []),
        ],
        traceContext,
      );
      const byId = new Map<string, BrokerRecord>();
      for (const record of records) if (!byId.has(record.clientId)) byId.set(record.clientId, record);
      const entries: LookupEntryMessage[] = request.client_ids.map((clientId) => {
        const record = byId.get(clientId);
        return record ? entryOf(record) : { client_id: clientId, state: 'not_found', action: '' };
      });
      for (const record of byId.values()) if (!request.client_ids.includes(record.clientId)) entries.push(entryOf(record));
      const message = prefix !== '' && !byPrefix ? 'a client-id prefix is looked up only with from_unix_ms; nothing was' : '';
      return { account_id: request.account_id, connected: true, message, entries };
    } catch (error) {
      if (isTerminalFailure(error)) return { account_id: request.account_id, connected: false, message: error.message, entries: [] };
      throw error;
    }
  }

  /** Liveness as the terminal answers it: its `account` figures read within the read deadline. */
  async ping(request: PingRequestMessage, traceContext: Context = context.active()): Promise<PingReplyMessage> {
    const startedMs = Date.now();
    const base = { server: '', platform: this.options.platform, symbol_suffix: '', margin_mode: '' };
    try {
      const info = await this.options.terminals.withTerminal(
        request.account_id,
        (terminal) => this.options.adapter.accountInfo(terminal, this.options.config.BROKER_READ_DEADLINE_MS),
        traceContext,
      );
      return {
        ...base,
        connected: true,
        latency_ms: Date.now() - startedMs,
        margin_mode: info.marginMode,
        server: info.server,
        message: '',
        reason: '',
      };
    } catch (error) {
      if (isTerminalFailure(error))
        return { ...base, connected: false, latency_ms: Date.now() - startedMs, message: error.message, reason: 'no_connection' };
      throw error;
    }
  }
}
