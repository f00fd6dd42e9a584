import type { CloseAccountStatus, CloseSelectorMessage, LegStatus, TicketResultMessage } from '@mtx/shared/connector/messages';
import { isBuyType, retcode, symbolMatches, type BrokerSymbols } from '@mtx/shared/trading';
import type { OpenItem } from './adapter';

/** How a connector reads outcomes and selectors: leg status of a retcode, an account's close status, a selector's match. Pure. */

export function legStatusOf(code: number): LegStatus {
  if (code === retcode.DONE || code === retcode.DONE_PARTIAL) return 'filled';
  if (code === retcode.PLACED) return 'placed';
  return 'rejected';
}

/**
 * Whether a close or delete with this retcode closed its ticket. A partial fill of a close (DONE_PARTIAL) closed
 * what it filled, exactly as a live answer reports it, so a replayed duplicate and a reconciled record say the
 * same as the answer the client first got.
 */
export function ticketClosedBy(code: number): boolean {
  return code === retcode.DONE || code === retcode.DONE_PARTIAL;
}

/** Per-account close status from its tickets (docs/architecture.md, "API rules"). */
export function closeAccountStatus(results: Array<Pick<TicketResultMessage, 'status'>>): CloseAccountStatus {
  const matched = results.length;
  const closed = results.filter((result) => result.status === 'closed').length;
  if (matched === 0) return 'nothing_matched';
  if (closed === matched) return 'closed';
  if (closed > 0) return 'partial';
  if (results.some((result) => result.status === 'unknown')) return 'unknown';
  return 'failed';
}

/** Whether an open item of an account at `broker` is picked by a close selector. */
export function selectorMatches(
  item: OpenItem,
  selector: { symbol: string; symbol_match: string; side: string; kind: string; magic?: number },
  broker: BrokerSymbols,
): boolean {
  const mode = selector.symbol_match === 'base' ? 'base' : 'exact';
  if (!symbolMatches(item.symbol, selector.symbol, mode, broker)) return false;
  const kind = selector.kind || 'position';
  if (kind !== 'any' && item.kind !== kind) return false;
  const side = selector.side || 'any';
  if (side === 'long' && !isBuyType(item.type)) return false;
  if (side === 'short' && isBuyType(item.type)) return false;
  if (selector.magic !== undefined && selector.magic !== null && item.magic !== selector.magic) return false;
  return true;
}

/** Which open orders a selector asks the trade server for: positions (the default), pending orders or both. */
export function selectorKind(selector: Pick<CloseSelectorMessage, 'kind'>): 'position' | 'pending' | 'any' {
  return (selector.kind || 'position') as 'position' | 'pending' | 'any';
}

/**
 * The open items a selector picks, in the order a close takes them (ticket order). A close and a positions read
 * both go through here, so a read lists exactly what the same selector would close.
 */
export function selectMatches(items: OpenItem[], selector: CloseSelectorMessage, broker: BrokerSymbols): OpenItem[] {
  return items.filter((item) => selectorMatches(item, selector, broker)).sort((left, right) => left.ticket - right.ticket);
}
