import { useMemo, useRef, useState } from 'preact/hooks';
import { batchDeadlineMs } from '../api/client';
import type { Account, CloseResult, Positions } from '../api/types';
import { Empty, ErrorNotice, Loading, ReadOnlyNotice, Section, StatusBadge, TableScroll } from '../components/common';
import { ModifyStops, type SelectedTicket } from '../components/modify-stops';
import { useFeatures, useSession } from '../context';
import { SubmissionKeys } from '../domain/idempotency';
import { formatNumber } from '../domain/money';
import { useAction, usePolled } from '../hooks';

interface Filters {
  account_id: string[];
  symbol: string;
  symbol_match: 'exact' | 'base';
  side: 'any' | 'long' | 'short';
  kind: 'any' | 'position' | 'pending';
  magic: string;
}

const ticketKey = (accountId: string, ticket: number) => `${accountId}#${ticket}`;

/**
 * Positions across accounts under the close selector's filters. Closing shows first exactly what matches (GET
 * /v1/positions), lets the person untick some, then closes those tickets and shows each one's result.
 */
export function PositionsPage() {
  const { api } = useSession();
  const features = useFeatures();
  const accounts = usePolled(() => api.get<{ accounts: Account[] }>('/v1/accounts'), [api]);
  const [filters, setFilters] = useState<Filters>({
    account_id: [],
    symbol: '',
    symbol_match: 'base',
    side: 'any',
    kind: 'any',
    magic: '',
  });
  const [applied, setApplied] = useState<Filters>(filters);
  const positions = usePolled(
    () => api.get<Positions>('/v1/positions', { ...applied, magic: applied.magic || undefined, side: applied.side, kind: applied.kind }),
    [api, JSON.stringify(applied)],
  );
  const [unticked, setUnticked] = useState<Set<string>>(new Set());
  const close = useAction<CloseResult>();
  const keys = useRef(new SubmissionKeys());
  const set = (change: Partial<Filters>) => setFilters({ ...filters, ...change });

  const ticked = useMemo(() => {
    const selected: SelectedTicket[] = [];
    for (const result of positions.data?.results ?? [])
      for (const position of result.positions ?? [])
        if (!unticked.has(ticketKey(result.account_id, position.ticket))) selected.push({ account_id: result.account_id, position });
    return selected;
  }, [positions.data, unticked]);
  const selection = useMemo(() => {
    const byAccount = new Map<string, number[]>();
    for (const { account_id, position } of ticked) byAccount.set(account_id, [...(byAccount.get(account_id) ?? []), position.ticket]);
    return [...byAccount].map(([account_id, tickets]) => ({ account_id, tickets }));
  }, [ticked]);
  const selectedCount = selection.reduce((total, entry) => total + entry.tickets.length, 0);

  const submitClose = () => {
    const body = { accounts: selection };
    void close.run(() =>
      api.request<CloseResult>('POST', '/v1/orders/close', {
        body,
        idempotencyKey: keys.current.keyFor(body),
        deadlineMs: batchDeadlineMs,
      }),
    );
  };

  return (
    <>
      <h1>Positions</h1>
      <Section title="Filters (the close selector's)">
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            setUnticked(new Set());
            close.reset();
            setApplied(filters);
          }}
        >
          <fieldset>
            <legend>Accounts (none ticked: all)</legend>
            {accounts.data?.accounts.map((account) => (
              <label key={account.id} class="check">
                <input
                  type="checkbox"
                  checked={filters.account_id.includes(account.id)}
                  onChange={(event) =>
                    set({
                      account_id: (event.target as HTMLInputElement).checked
                        ? [...filters.account_id, account.id]
                        : filters.account_id.filter((id) => id !== account.id),
                    })
                  }
                />
                {account.label || account.login} ({account.platform})
              </label>
            ))}
          </fieldset>
          <label>
            Symbol
            <input
              value={filters.symbol}
              placeholder="EURUSD"
              onInput={(event) => set({ symbol: (event.target as HTMLInputElement).value })}
            />
          </label>
          <label>
            Symbol match
            <select
              value={filters.symbol_match}
              onChange={(event) => set({ symbol_match: (event.target as HTMLSelectElement).value as Filters['symbol_match'] })}
            >
              <option value="base">base (any broker suffix)</option>
              <option value="exact">exact</option>
            </select>
          </label>
          <label>
            Side
            <select value={filters.side} onChange={(event) => set({ side: (event.target as HTMLSelectElement).value as Filters['side'] })}>
              <option value="any">any</option>
              <option value="long">long</option>
              <option value="short">short</option>
            </select>
          </label>
          <label>
            Kind
            <select value={filters.kind} onChange={(event) => set({ kind: (event.target as HTMLSelectElement).value as Filters['kind'] })}>
              <option value="any">any</option>
              <option value="position">open positions</option>
              <option value="pending">pending orders</option>
            </select>
          </label>
          <label>
            Magic
            <input
              inputMode="numeric"
              value={filters.magic}
              onInput={(event) => set({ magic: (event.target as HTMLInputElement).value })}
            />
          </label>
          <button type="submit">Show matches</button>
        </form>
      </Section>
      <ErrorNotice action="Listing the positions" error={positions.error} />
      {!positions.data && positions.loading && <Loading what="positions on every account" />}
      {positions.data && (
        <Section title={`Matched: ${positions.data.summary.positions} on ${positions.data.summary.accounts} account(s)`}>
          {positions.data.summary.positions === 0 && <Empty>Nothing matches these filters.</Empty>}
          {positions.data.results.map((result) => (
            <div key={result.account_id} class="account-positions">
              <h3>
                {result.account_id} <span class="muted">{result.platform}</span> <StatusBadge status={result.status} />
                {result.message && <span class="muted"> {result.message}</span>}
              </h3>
              {(result.positions ?? []).length > 0 && (
                <TableScroll label="Positions of the account">
                  <table data-testid="positions-table">
                    <thead>
                      <tr>
                        <th scope="col">Select</th>
                        <th scope="col">Ticket</th>
                        <th scope="col">Symbol</th>
                        <th scope="col">Type</th>
                        <th scope="col" class="number">
                          Volume
                        </th>
                        <th scope="col" class="number">
                          Open
                        </th>
                        <th scope="col" class="number">
                          Now
                        </th>
                        <th scope="col" class="number">
                          Stop loss
                        </th>
                        <th scope="col" class="number">
                          Take profit
                        </th>
                        <th scope="col" class="number">
                          Profit
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {result.positions!.map((position) => {
                        const key = ticketKey(result.account_id, position.ticket);
                        return (
                          <tr key={key}>
                            <td>
                              <input
                                type="checkbox"
                                aria-label={`Select ticket ${position.ticket}`}
                                checked={!unticked.has(key)}
                                disabled={api.readOnly}
                                onChange={(event) => {
                                  const next = new Set(unticked);
                                  if ((event.target as HTMLInputElement).checked) next.delete(key);
                                  else next.add(key);
                                  setUnticked(next);
                                }}
                              />
                            </td>
                            <td>{position.ticket}</td>
                            <td>{position.symbol}</td>
                            <td>{position.type}</td>
                            <td class="number">{position.volume}</td>
                            <td class="number">{formatNumber(position.open_price, 5)}</td>
                            <td class="number">{formatNumber(position.current_price, 5)}</td>
                            <td class="number" data-testid="stop-loss">
                              {position.stop_loss ? formatNumber(position.stop_loss, 5) : '—'}
                            </td>
                            <td class="number" data-testid="take-profit">
                              {position.take_profit ? formatNumber(position.take_profit, 5) : '—'}
                            </td>
                            <td class={(position.profit ?? 0) < 0 ? 'number text-bad' : 'number'}>{formatNumber(position.profit)}</td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </TableScroll>
              )}
            </div>
          ))}
          {api.readOnly ? (
            <ReadOnlyNotice what="Closing or modifying positions" />
          ) : (
            <div class="button-row">
              {features.modifyOrders && <ModifyStops tickets={ticked} onModified={positions.reload} />}
              <button
                type="button"
                class="button-danger"
                disabled={selectedCount === 0 || close.pending}
                onClick={submitClose}
                data-testid="close-selected"
              >
                {close.pending ? 'Closing…' : `Close ${selectedCount} selected`}
              </button>
            </div>
          )}
        </Section>
      )}
      <ErrorNotice action="Closing" error={close.error} />
      {close.result && <CloseResults result={close.result} />}
    </>
  );
}

function CloseResults({ result }: { result: CloseResult }) {
  return (
    <Section
      title={`Closed ${result.summary.closed} of ${result.summary.matched}${result.idempotent_replay ? ' (replayed, nothing sent again)' : ''}`}
    >
      <p class="muted">
        Batch <code>{result.batch_id}</code>: {result.summary.failed} failed, {result.summary.unknown} unknown.
      </p>
      <TableScroll label="Close results">
        <table data-testid="close-results">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Ticket</th>
              <th scope="col">Symbol</th>
              <th scope="col">Status</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {result.results.flatMap((account) =>
              (account.results ?? []).length === 0
                ? [
                    <tr key={account.account_id}>
                      <td>{account.account_id}</td>
                      <td>—</td>
                      <td>—</td>
                      <td>
                        <StatusBadge status={account.status} />
                      </td>
                      <td>{account.message}</td>
                    </tr>,
                  ]
                : (account.results ?? []).map((ticket) => (
                    <tr key={`${account.account_id}-${ticket.ticket}`}>
                      <td>{account.account_id}</td>
                      <td>{ticket.ticket}</td>
                      <td>{ticket.symbol}</td>
                      <td>
                        <StatusBadge status={ticket.status} />
                      </td>
                      <td>
                        {ticket.retcode_description || ticket.message} <span class="muted">({account.latency_ms} ms)</span>
                      </td>
                    </tr>
                  )),
            )}
          </tbody>
        </table>
      </TableScroll>
    </Section>
  );
}
