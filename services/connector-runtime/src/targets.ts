import type { Context } from '@opentelemetry/api';
import type { CloseSelectorMessage } from '@mtx/shared/connector/messages';
import type { OpenItem } from './adapter';
import { brokerSymbolsFor } from './broker-symbols';
import type { ConnectorRuntimeOptions } from './runtime-context';
import { selectMatches, selectorKind } from './selection';

/** What a close or a modify asks to act on: explicit tickets, or a selector with the account's symbol suffix. */
export interface TargetRequest {
  account_id: string;
  tickets: number[];
  selector?: CloseSelectorMessage | null;
  symbol_suffix?: string;
}

/**
 * The open items a close or a modify acts on, in the order it takes them: each explicit ticket looked up (the
 * ones that are not open come back in `missing`), or one lookup of the account's open orders through the
 * selector (ticket order). Reads only; a failure here means nothing was sent.
 */
export async function lookUpTargets(
  options: ConnectorRuntimeOptions,
  request: TargetRequest,
  traceContext: Context,
): Promise<{ items: OpenItem[]; missing: number[] }> {
  const deadlineMs = options.config.BROKER_READ_DEADLINE_MS;
  return options.terminals.withTerminal(
    request.account_id,
    async (terminal) => {
      if (request.tickets.length > 0) {
        const found = await Promise.all(request.tickets.map((ticket) => options.adapter.getTicket(terminal, ticket, deadlineMs)));
        const items: OpenItem[] = [];
        const missing: number[] = [];
        for (const [index, item] of found.entries()) {
          if (item) items.push(item);
          else missing.push(request.tickets[index]!);
        }
        return { items, missing };
      }
      const selector = request.selector!;
      const open = await options.adapter.listOpen(terminal, selectorKind(selector), deadlineMs);
      const broker = await brokerSymbolsFor(options.adapter, terminal, selector, open, deadlineMs, request.symbol_suffix ?? '');
      return { items: selectMatches(open, selector, broker), missing: [] };
    },
    traceContext,
  );
}

/** A request's own cap on the items it acts on per account, within the connector's. */
export function perAccountCap(requested: number, connectorMax: number): number {
  return requested > 0 ? Math.min(requested, connectorMax) : connectorMax;
}
