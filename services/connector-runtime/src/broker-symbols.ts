import type { CloseSelectorMessage } from '@mtx/shared/connector/messages';
import { type BrokerSymbols, symbolSuffixSeparators } from '@mtx/shared/trading';
import type { OpenItem, PlatformAdapter } from './adapter';
import type { TerminalHandle } from './terminal-access';

const noSymbols: BrokerSymbols = { suffix: '', namesLowerCase: new Set() };

/**
 * What a `base` selector needs to know of the account's broker (docs/architecture.md, "API rules": the base
 * must itself name a symbol there), asked of the terminal: the base names a symbol when the terminal knows it
 * (`symbol`) with or without the account's suffix, or when an open item's symbol is the base followed by a separator-led suffix (`EURUSD.xx`), which
 * no longer symbol name can continue. An `exact` or `*` selector needs nothing.
 */
export async function brokerSymbolsFor(
  adapter: PlatformAdapter,
  terminal: TerminalHandle,
  selector: Pick<CloseSelectorMessage, 'symbol' | 'symbol_match'>,
  items: OpenItem[],
  deadlineMs: number,
  accountSuffix: string,
): Promise<BrokerSymbols> {
  if (selector.symbol_match !== 'base' || selector.symbol === '*') return noSymbols;
  const base = selector.symbol.toLowerCase();
  const separated = items.some((item) => {
    const name = item.symbol.toLowerCase();
    return name.length > base.length && name.startsWith(base) && (symbolSuffixSeparators as readonly string[]).includes(name[base.length]!);
  });
  const known =
    separated ||
    (await adapter.symbol(terminal, selector.symbol, deadlineMs)) !== undefined ||
    // The account's own suffix (EURUSDm on a broker whose symbols end in m), as its host reported it.
    (accountSuffix !== '' && (await adapter.symbol(terminal, `${selector.symbol}${accountSuffix}`, deadlineMs)) !== undefined);
  return { suffix: '', namesLowerCase: new Set(known ? [base] : []) };
}
