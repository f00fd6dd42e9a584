import { connectorCodecs } from '@mtx/shared/connector/messages';
import type { InspectReply__Output } from '@mtx/shared/generated/proto/mtx/connector/v1/InspectReply';
import type { InspectRequest__Output } from '@mtx/shared/generated/proto/mtx/connector/v1/InspectRequest';
import { retcode } from '@mtx/shared/trading';
import type { TerminalClient } from '../clients/terminals';
import { allowedSymbolVerdict, ExposureLimits, orderVolumeVerdict, tradingEnabledVerdict, type Verdict } from '../domain/account-limits';
import { settingsOf } from '../domain/account-settings';
import { type LegSizing, type SymbolFigures, sizeLeg } from '../domain/sizing';
import { knownSymbol, needsCandidates, resolveSymbol } from '../domain/symbol-resolution';
import type { NormalizedLeg } from '../domain/validation';
import type { AccountDocument } from '../store/execution-store';

/** What the pre-trade rules decided for a leg: send it as resolved and sized, or refuse it with nothing sent. */
export type LegDecision =
  | { send: true; symbol: string; volume: number; sizing?: LegSizing }
  | {
      send: false;
      status: 'rejected' | 'unavailable';
      retcode?: number;
      message: string;
      symbol: string;
      volume: number;
      sizing?: LegSizing;
    };

type Candidate = { leg: NormalizedLeg; symbol: string; volume: number; sizing?: LegSizing };

/**
 * The pre-trade rules of one account's legs (docs/architecture.md, "Pre-trade rules"), before anything is sent:
 * the account's settings (trading_enabled, allowed_symbols, its volume and position limits), symbol resolution
 * (`symbol_match: base`), sizing and the margin check. What they need of the terminal is read in at most two
 * `inspect` requests (figures, positions, symbols and candidates; then margins), and only when a leg needs it.
 * A read that fails refuses the legs as `unavailable`: nothing was sent, so nothing is unknown.
 */
export class PreTrade {
  constructor(private readonly terminals: TerminalClient) {}

  /** Whether any leg needs a rule of this module; legs of accounts without settings and features skip it all. */
  static applies(document: AccountDocument, legs: NormalizedLeg[]): boolean {
    return document.settings !== undefined || legs.some((leg) => leg.sizing || leg.symbol_match === 'base' || leg.check_margin);
  }

  /** `deadlineMs`: when the reads must be done (the batch gives them half its deadline). */
  async decide(document: AccountDocument, legs: NormalizedLeg[], deadlineMs: number): Promise<Map<number, LegDecision>> {
    const settings = settingsOf(document.settings);
    const decisions = new Map<number, LegDecision>();
    const refuse = (leg: NormalizedLeg, verdict: Verdict & { ok: false }, symbol = leg.symbol, volume = leg.volume, sizing?: LegSizing) =>
      decisions.set(leg.index, {
        send: false,
        status: 'rejected',
        retcode: verdict.retcode,
        message: verdict.message,
        symbol,
        volume,
        ...(sizing ? { sizing } : {}),
      });

    const enabled = tradingEnabledVerdict(settings, document._id);
    if (!enabled.ok) {
      for (const leg of legs) refuse(leg, enabled);
      return decisions;
    }
    const exposureNeeded = ExposureLimits.needed(settings);
    const request = inspectRequest(document, deadlineMs, {
      account: legs.some((leg) => leg.sizing),
      positions: exposureNeeded,
      symbols: [...new Set(legs.filter((leg) => leg.sizing).flatMap((leg) => knownSymbol(leg.symbol, leg.symbol_match, settings) ?? []))],
      bases: [...new Set(legs.filter((leg) => needsCandidates(leg.symbol, leg.symbol_match, settings)).map((leg) => leg.symbol))],
    });
    const needsRead = request.account || request.positions || request.symbols.length > 0 || request.bases.length > 0;
    const reply = needsRead ? await this.inspect(document, request, deadlineMs) : emptyReply(document._id);
    if (typeof reply === 'string') {
      for (const leg of legs)
        decisions.set(leg.index, { send: false, status: 'unavailable', message: reply, symbol: leg.symbol, volume: leg.volume });
      return decisions;
    }

    const specifications = new Map<string, SymbolFigures>();
    // By lower-case name: a terminal answers with the server's own spelling of a name given in another case.
    for (const symbol of reply.symbols) specifications.set(symbol.name.toLowerCase(), symbol);
    const candidatesOf = new Map<string, string[]>();
    for (const base of reply.bases) {
      candidatesOf.set(
        base.base,
        base.candidates.map((candidate) => candidate.name),
      );
      for (const candidate of base.candidates) specifications.set(candidate.name.toLowerCase(), candidate);
    }

    const candidates: Candidate[] = [];
    for (const leg of legs) {
      const resolution = resolveSymbol(leg.symbol, leg.symbol_match, settings, candidatesOf.get(leg.symbol) ?? []);
      if (!resolution.ok) {
        refuse(leg, resolution);
        continue;
      }
      const symbol = resolution.symbol;
      const allowed = allowedSymbolVerdict(settings, leg.symbol, symbol);
      if (!allowed.ok) {
        refuse(leg, allowed, symbol);
        continue;
      }
      if (!leg.sizing) {
        const volumeVerdict = orderVolumeVerdict(settings, leg.volume);
        if (!volumeVerdict.ok) refuse(leg, volumeVerdict, symbol);
        else candidates.push({ leg, symbol, volume: leg.volume });
        continue;
      }
      const specification = specifications.get(symbol.toLowerCase());
      if (!specification || !reply.account) {
        refuse(
          leg,
          { ok: false, retcode: retcode.INVALID, message: `not sent: the trade server of this account does not list ${symbol}` },
          symbol,
        );
        continue;
      }
      const sized = sizeLeg(leg.sizing, leg, reply.account, specification, settings.max_volume_per_order);
      if (!sized.ok) refuse(leg, sized, symbol, 0, sized.sizing);
      else candidates.push({ leg, symbol, volume: sized.volume, sizing: sized.sizing });
    }

    const margins = await this.marginVerdicts(document, candidates, deadlineMs);
    const exposure = exposureNeeded
      ? new ExposureLimits(
          settings,
          document.margin_mode === 'netting' || reply.account?.margin_mode === 'netting',
          reply.positions.map(positionFigure),
        )
      : undefined;
    let committedMargin = 0;
    for (const candidate of candidates) {
      const { leg, symbol, volume, sizing } = candidate;
      const margin = margins.get(leg.index);
      if (typeof margin === 'string') {
        decisions.set(leg.index, { send: false, status: 'unavailable', message: margin, symbol, volume, ...(sizing ? { sizing } : {}) });
        continue;
      }
      if (margin) {
        // Each checked leg is valued alone by the terminal; the legs of this batch before it take their margin first.
        const freeAfter = margin.margin_free - committedMargin;
        if (margin.retcode === retcode.NO_MONEY || freeAfter < 0) {
          const verdict = {
            ok: false as const,
            retcode: retcode.NO_MONEY,
            message: `not sent: check_margin: ${volume} lots of ${symbol} need ${margin.margin} of margin and would leave ${Number(freeAfter.toFixed(2))} free`,
          };
          refuse(leg, verdict, symbol, volume, sizing);
          continue;
        }
        if (margin.retcode === retcode.INVALID) {
          refuse(
            leg,
            { ok: false, retcode: retcode.INVALID, message: `not sent: check_margin: ${margin.message}` },
            symbol,
            volume,
            sizing,
          );
          continue;
        }
      }
      const admitted = exposure ? exposure.admit({ symbol, operation: leg.operation, volume }) : { ok: true as const };
      if (!admitted.ok) {
        refuse(leg, admitted, symbol, volume, sizing);
        continue;
      }
      if (margin) committedMargin += margin.margin;
      decisions.set(leg.index, { send: true, symbol, volume, ...(sizing ? { sizing } : {}) });
    }
    return decisions;
  }

  /** The terminal's margin check of each candidate that asks for one (one `inspect`); a failed read is its message. */
  private async marginVerdicts(
    document: AccountDocument,
    candidates: Candidate[],
    deadlineMs: number,
  ): Promise<Map<number, InspectReply__Output['margins'][number] | string>> {
    const verdicts = new Map<number, InspectReply__Output['margins'][number] | string>();
    const checked = candidates.filter((candidate) => candidate.leg.check_margin);
    if (checked.length === 0) return verdicts;
    const reply = await this.inspect(
      document,
      inspectRequest(document, deadlineMs, {
        margin_checks: checked.map(({ leg, symbol, volume }) => ({
          symbol,
          operation: leg.operation,
          volume,
          ...(leg.price !== undefined && leg.price > 0 ? { price: leg.price } : {}),
        })),
      }),
      deadlineMs,
    );
    checked.forEach((candidate, position) => {
      const margin = typeof reply === 'string' ? reply : reply.margins[position];
      verdicts.set(candidate.leg.index, margin ?? 'not sent: the terminal did not answer the margin check');
    });
    return verdicts;
  }

  /** One `inspect` request; a reply that is not `ok`, or none by the deadline, is the refusal's message. */
  private async inspect(
    document: AccountDocument,
    request: InspectRequest__Output,
    deadlineMs: number,
  ): Promise<InspectReply__Output | string> {
    const timeoutMs = deadlineMs - Date.now();
    if (timeoutMs <= 0) return 'not sent: no time was left for the pre-trade reads';
    const response = await this.terminals.request(
      document.platform,
      document._id,
      'inspect',
      connectorCodecs.inspectRequest.encode(request),
      {
        timeoutMs,
      },
    );
    // Only reads were asked for: whatever happened to them, no order was sent.
    if (response.kind === 'no_responders') return `not sent: no ${document.platform} terminal is running for this account`;
    if (response.kind === 'timeout') return `not sent: the terminal did not answer the pre-trade reads within ${timeoutMs} ms`;
    if (response.kind === 'service_error') return `not sent: the pre-trade reads failed (${response.message})`;
    const reply = connectorCodecs.inspectReply.decode(response.data);
    return reply.status === 'ok' ? reply : `not sent: the pre-trade reads failed (${reply.message})`;
  }
}

function inspectRequest(document: AccountDocument, deadlineMs: number, parts: Partial<InspectRequest__Output>): InspectRequest__Output {
  return {
    account_id: document._id,
    deadline_unix_ms: deadlineMs,
    account: false,
    positions: false,
    symbols: [],
    bases: [],
    symbol_suffix: document.symbol_suffix,
    margin_checks: [],
    ...parts,
  };
}

function emptyReply(accountId: string): InspectReply__Output {
  return {
    account_id: accountId,
    status: 'ok',
    message: '',
    account: null,
    positions: [],
    symbols: [],
    bases: [],
    margins: [],
    latency_ms: 0,
  };
}

function positionFigure(position: InspectReply__Output['positions'][number]): { symbol: string; type: number; volume: number } {
  return { symbol: position.symbol, type: position.type === 'sell' ? 1 : 0, volume: position.volume };
}
