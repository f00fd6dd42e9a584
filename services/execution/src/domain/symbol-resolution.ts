import { retcode } from '@mtx/shared/trading';
import { type AccountSettings, mappedSymbol } from './account-settings';

/**
 * Which broker symbol a leg trades (docs/architecture.md, "Pre-trade rules"). `exact` (the default) sends the name
 * as given. `base` takes the account's symbol map first, else the one broker symbol the close selector's `base`
 * rule accepts (the connector filters the broker's symbol list with that one function, `symbolMatches`); none,
 * or more than one, refuses the leg naming the candidates. Pure.
 */

export type SymbolMatch = 'exact' | 'base';

export type Resolution = { ok: true; symbol: string } | { ok: false; retcode: number; message: string };

/** Whether a leg needs the broker's candidates for its name (base, and not in the map). */
export function needsCandidates(name: string, match: SymbolMatch, settings: AccountSettings): boolean {
  return match === 'base' && mappedSymbol(settings, name) === undefined;
}

/** The symbol a leg names before any terminal is asked: the name itself, or its mapped symbol; undefined when the broker must say. */
export function knownSymbol(name: string, match: SymbolMatch, settings: AccountSettings): string | undefined {
  if (match === 'exact') return name;
  return mappedSymbol(settings, name);
}

export function resolveSymbol(name: string, match: SymbolMatch, settings: AccountSettings, candidates: readonly string[]): Resolution {
  const known = knownSymbol(name, match, settings);
  if (known !== undefined) return { ok: true, symbol: known };
  if (candidates.length === 1) return { ok: true, symbol: candidates[0]! };
  if (candidates.length === 0)
    return {
      ok: false,
      retcode: retcode.INVALID,
      message: `not sent: no symbol of this account's broker matches the base ${name}, and symbol_map has no entry for it`,
    };
  return {
    ok: false,
    retcode: retcode.INVALID,
    message: `not sent: the base ${name} matches ${candidates.length} symbols of this account's broker (${candidates.join(', ')}); name one exactly or add ${name} to symbol_map`,
  };
}
