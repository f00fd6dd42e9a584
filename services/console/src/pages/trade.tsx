import { useRef, useState } from 'preact/hooks';
import { batchDeadlineMs } from '../api/client';
import type { Account, PlaceRequest, PlaceResult } from '../api/types';
import { ErrorNotice, Loading, ReadOnlyNotice, Section, StatusBadge, TableScroll } from '../components/common';
import { useSession } from '../context';
import { SubmissionKeys } from '../domain/idempotency';
import { formatNumber } from '../domain/money';
import { useAction, usePolled } from '../hooks';

interface Leg {
  id: number;
  accountId: string;
  /** Empty: the defaults' base symbol with the account's broker suffix. */
  symbol: string;
  side: '' | 'buy' | 'sell';
  volume: string;
  stopLoss: string;
  takeProfit: string;
}

let legSequence = 0;
const newLeg = (accountId = ''): Leg => ({ id: ++legSequence, accountId, symbol: '', side: '', volume: '', stopLoss: '', takeProfit: '' });
const numberOrUndefined = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** Legs as rows plus defaults; one Idempotency-Key per submission, so a double click or a retry never trades twice. */
export function TradePage() {
  const { api } = useSession();
  const accounts = usePolled(() => api.get<{ accounts: Account[] }>('/v1/accounts'), [api]);
  const [baseSymbol, setBaseSymbol] = useState('EURUSD');
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [volume, setVolume] = useState('0.1');
  const [legs, setLegs] = useState<Leg[]>([newLeg()]);
  const place = useAction<PlaceResult>();
  const keys = useRef(new SubmissionKeys());
  const accountById = new Map((accounts.data?.accounts ?? []).map((account) => [account.id, account]));

  if (api.readOnly)
    return (
      <>
        <h1>Trade ticket</h1>
        <ReadOnlyNotice what="Placing orders" />
      </>
    );

  const update = (id: number, change: Partial<Leg>) => setLegs(legs.map((leg) => (leg.id === id ? { ...leg, ...change } : leg)));
  const symbolFor = (leg: Leg) => leg.symbol || `${baseSymbol}${accountById.get(leg.accountId)?.symbol_suffix ?? ''}`;
  const body = (): PlaceRequest => ({
    defaults: { operation: side, volume: Number(volume) },
    orders: legs.map((leg) => ({
      account_id: leg.accountId,
      symbol: symbolFor(leg),
      ...(leg.side ? { operation: leg.side } : {}),
      ...(leg.volume ? { volume: Number(leg.volume) } : {}),
      ...(numberOrUndefined(leg.stopLoss) !== undefined ? { stop_loss: Number(leg.stopLoss) } : {}),
      ...(numberOrUndefined(leg.takeProfit) !== undefined ? { take_profit: Number(leg.takeProfit) } : {}),
    })),
  });
  const submit = (event: Event) => {
    event.preventDefault();
    const request = body();
    void place.run(() =>
      api.request<PlaceResult>('POST', '/v1/orders', {
        body: request,
        idempotencyKey: keys.current.keyFor(request),
        deadlineMs: batchDeadlineMs,
      }),
    );
  };
  const incomplete = legs.length === 0 || legs.some((leg) => !leg.accountId);

  return (
    <>
      <h1>Trade ticket</h1>
      {!accounts.data && accounts.loading && <Loading what="the accounts" />}
      <ErrorNotice action="Loading the accounts" error={accounts.error} />
      <form onSubmit={submit}>
        <Section title="Defaults">
          <div class="filters">
            <label>
              Base symbol
              <input value={baseSymbol} onInput={(event) => setBaseSymbol((event.target as HTMLInputElement).value.trim())} />
            </label>
            <label>
              Side
              <select value={side} onChange={(event) => setSide((event.target as HTMLSelectElement).value as 'buy' | 'sell')}>
                <option value="buy">buy</option>
                <option value="sell">sell</option>
              </select>
            </label>
            <label>
              Volume (lots)
              <input inputMode="decimal" value={volume} onInput={(event) => setVolume((event.target as HTMLInputElement).value)} />
            </label>
          </div>
        </Section>
        <Section
          title={`Legs (${legs.length} of 20)`}
          actions={
            <div class="button-row">
              <button type="button" class="button-small" disabled={legs.length >= 20} onClick={() => setLegs([...legs, newLeg()])}>
                Add leg
              </button>
              <button
                type="button"
                class="button-small"
                onClick={() => setLegs((accounts.data?.accounts ?? []).slice(0, 20).map((account) => newLeg(account.id)))}
                data-testid="leg-per-account"
              >
                One leg per account
              </button>
            </div>
          }
        >
          <TableScroll label="Legs">
            <table class="legs">
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Symbol</th>
                  <th scope="col">Side</th>
                  <th scope="col">Volume</th>
                  <th scope="col">Stop loss</th>
                  <th scope="col">Take profit</th>
                  <th scope="col">
                    <span class="visually-hidden">Remove</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {legs.map((leg, index) => (
                  <tr key={leg.id}>
                    <td>
                      <select
                        aria-label={`Leg ${index + 1} account`}
                        value={leg.accountId}
                        onChange={(event) => update(leg.id, { accountId: (event.target as HTMLSelectElement).value })}
                      >
                        <option value="">choose…</option>
                        {accounts.data?.accounts.map((account) => (
                          <option key={account.id} value={account.id}>
                            {account.label || account.login} ({account.platform})
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input
                        aria-label={`Leg ${index + 1} symbol`}
                        placeholder={symbolFor({ ...leg, symbol: '' })}
                        value={leg.symbol}
                        onInput={(event) => update(leg.id, { symbol: (event.target as HTMLInputElement).value.trim() })}
                      />
                    </td>
                    <td>
                      <select
                        aria-label={`Leg ${index + 1} side`}
                        value={leg.side}
                        onChange={(event) => update(leg.id, { side: (event.target as HTMLSelectElement).value as Leg['side'] })}
                      >
                        <option value="">default ({side})</option>
                        <option value="buy">buy</option>
                        <option value="sell">sell</option>
                      </select>
                    </td>
                    <td>
                      <input
                        aria-label={`Leg ${index + 1} volume`}
                        inputMode="decimal"
                        placeholder={volume}
                        value={leg.volume}
                        onInput={(event) => update(leg.id, { volume: (event.target as HTMLInputElement).value })}
                      />
                    </td>
                    <td>
                      <input
                        aria-label={`Leg ${index + 1} stop loss`}
                        inputMode="decimal"
                        value={leg.stopLoss}
                        onInput={(event) => update(leg.id, { stopLoss: (event.target as HTMLInputElement).value })}
                      />
                    </td>
                    <td>
                      <input
                        aria-label={`Leg ${index + 1} take profit`}
                        inputMode="decimal"
                        value={leg.takeProfit}
                        onInput={(event) => update(leg.id, { takeProfit: (event.target as HTMLInputElement).value })}
                      />
                    </td>
                    <td>
                      <button
                        type="button"
                        class="button-small button-quiet"
                        onClick={() => setLegs(legs.filter((other) => other.id !== leg.id))}
                        aria-label={`Remove leg ${index + 1}`}
                      >
                        ✕
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <button type="submit" disabled={incomplete || place.pending} data-testid="place-batch">
            {place.pending ? 'Placing…' : `Place ${legs.length} leg(s)`}
          </button>
          {incomplete && <p class="muted">Every leg needs an account.</p>}
        </Section>
      </form>
      <ErrorNotice action="Placing the batch" error={place.error} />
      {place.result && <PlaceResults result={place.result} />}
    </>
  );
}

function PlaceResults({ result }: { result: PlaceResult }) {
  const { summary } = result;
  return (
    <Section title={`Batch ${result.batch_id}${result.idempotent_replay ? ' (replayed, nothing sent again)' : ''}`}>
      <p data-testid="place-summary">
        {summary.filled} filled, {summary.placed} placed, {summary.failed} failed, {summary.unknown} unknown of {summary.requested}.
        {summary.unknown > 0 && ' An unknown leg may have executed: check the batch before placing it again.'}
      </p>
      <TableScroll label="Leg results">
        <table data-testid="place-results">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Symbol</th>
              <th scope="col">Side</th>
              <th scope="col">Status</th>
              <th scope="col">Retcode</th>
              <th scope="col" class="number">
                Price
              </th>
              <th scope="col" class="number">
                Latency
              </th>
            </tr>
          </thead>
          <tbody>
            {result.results.map((leg, index) => (
              <tr key={`${leg.account_id}-${index}`} class={`row-${leg.status}`}>
                <td>
                  {leg.account_id} <span class="muted">{leg.platform}</span>
                </td>
                <td>{leg.symbol}</td>
                <td>
                  {leg.operation} {leg.volume}
                </td>
                <td>
                  <StatusBadge status={leg.status} />
                </td>
                <td>
                  {leg.retcode ?? ''} {leg.retcode_description || leg.message}
                </td>
                <td class="number">{formatNumber(leg.price, 5)}</td>
                <td class="number">{leg.latency_ms} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </Section>
  );
}
