import { useEffect, useState } from 'preact/hooks';
import type { Asset, Topup } from '../api/types';
import { CopyButton, Empty, ErrorNotice, Loading, ReadOnlyNotice, Section, StatusBadge } from '../components/common';
import { Countdown, QrCode } from '../components/payment-widgets';
import { useSession } from '../context';
import { formatDate, formatEurCents, parseEurToCents } from '../domain/money';
import { paymentUri, sortAssets } from '../domain/payment-uri';
import { useAction, usePolled } from '../hooks';
import { routeHref } from '../routes';

const topupMinEurCents = 1000;
const topupMaxEurCents = 50_000;

/** Amount, then asset, then the deposit to make (address, exact amount, QR, countdown) with its status live. */
export function TopupPage({ argument }: { argument?: string }) {
  const { api } = useSession();
  if (argument && /^\d+$/.test(argument)) return <TopupStatus id={Number(argument)} />;
  if (api.readOnly)
    return (
      <>
        <h1>Top up</h1>
        <ReadOnlyNotice what="Creating a top-up" />
      </>
    );
  return <TopupForm />;
}

function TopupForm() {
  const { api } = useSession();
  const [text, setText] = useState('25');
  const [amountEurCents, setAmountEurCents] = useState<number | undefined>(undefined);
  const amountProblem = (() => {
    const cents = parseEurToCents(text);
    if (cents === undefined) return 'Enter an amount in euros, e.g. 25 or 25.50.';
    if (cents < topupMinEurCents || cents > topupMaxEurCents)
      return `A top-up is between ${formatEurCents(topupMinEurCents)} and ${formatEurCents(topupMaxEurCents)}.`;
    return undefined;
  })();
  return (
    <>
      <h1>Top up</h1>
      <Section title="1. Amount">
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (!amountProblem) setAmountEurCents(parseEurToCents(text));
          }}
        >
          <label for="topup-amount">Amount in EUR</label>
          <input
            id="topup-amount"
            inputMode="decimal"
            value={text}
            onInput={(event) => setText((event.target as HTMLInputElement).value)}
            aria-describedby="topup-amount-hint"
          />
          <button type="submit" disabled={Boolean(amountProblem)}>
            Choose a coin
          </button>
          <p id="topup-amount-hint" class={amountProblem ? 'text-bad' : 'muted'}>
            {amountProblem ??
              `From ${formatEurCents(topupMinEurCents)} to ${formatEurCents(topupMaxEurCents)}; the balance is capped at EUR 1,000.`}
          </p>
        </form>
      </Section>
      {amountEurCents !== undefined && (
        <AssetPicker
          key={amountEurCents}
          amountEurCents={amountEurCents}
          api={api}
          onAmount={(cents) => {
            setText((cents / 100).toFixed(2));
            setAmountEurCents(cents);
          }}
        />
      )}
    </>
  );
}

function AssetPicker({
  amountEurCents,
  api,
  onAmount,
}: {
  amountEurCents: number;
  api: ReturnType<typeof useSession>['api'];
  /** Picks another amount: a pair's minimum, for a pair this amount is below. */
  onAmount: (amountEurCents: number) => void;
}) {
  // The assets this amount can be paid in, and those only a larger amount reaches (a pair below its minimum is left
  // out; asked at the maximum amount, each row says its minimum).
  const assets = usePolled(async () => {
    const [offered, atMax] = await Promise.all([
      api.get<Asset[]>('/v1/wallet/assets', { amount_eur_cents: amountEurCents }),
      api.get<Asset[]>('/v1/wallet/assets', { amount_eur_cents: topupMaxEurCents }),
    ]);
    const offeredPairs = new Set(offered.map((asset) => `${asset.asset_code}/${asset.blockchain_code}`));
    return {
      offered: sortAssets(offered),
      larger: sortAssets(atMax.filter((asset) => !offeredPairs.has(`${asset.asset_code}/${asset.blockchain_code}`))),
    };
  }, [amountEurCents]);
  const create = useAction<Topup>();
  useEffect(() => {
    if (create.result) location.hash = routeHref('topup', String(create.result.id));
  }, [create.result]);
  const choose = (asset: Asset) =>
    create.run(() =>
      api.request<Topup>('POST', '/v1/wallet/topup', {
        body: {
          amount_eur_cents: amountEurCents,
          asset_code: asset.asset_code,
          blockchain_code: asset.blockchain_code,
          is_evm: asset.is_evm,
        },
      }),
    );
  return (
    <Section title={`2. Coin for ${formatEurCents(amountEurCents)}`}>
      <ErrorNotice action="Loading the coins" error={assets.error} />
      <ErrorNotice action="Creating the top-up" error={create.error} />
      {!assets.data && assets.loading && <Loading what="the coins on offer" />}
      {assets.data && assets.data.offered.length === 0 && <Empty>No coin takes this amount; try a larger one.</Empty>}
      {assets.data && assets.data.offered.length > 0 && (
        <ul class="asset-list" aria-label="Coins this amount can be paid in">
          {assets.data.offered.map((asset) => (
            <li key={`${asset.asset_code}/${asset.blockchain_code}`}>
              <button
                type="button"
                class="asset"
                disabled={create.pending}
                onClick={() => choose(asset)}
                data-testid={`asset-${asset.asset_code}-${asset.blockchain_code}`}
              >
                <span class="asset-name">
                  {asset.asset_name} <span class="muted">on {asset.blockchain_name}</span>
                </span>
                {asset.is_stable && <span class="badge badge-good">stablecoin</span>}
                <span class="asset-amount">
                  {asset.amount} {asset.asset_code}
                </span>
                <MinimumText asset={asset} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {assets.data && assets.data.larger.length > 0 && (
        <>
          <p class="muted" id="topup-larger-hint">
            Need a larger amount (below their minimum here); pick one to top up its minimum:
          </p>
          <ul class="asset-list" aria-label="Coins that need a larger amount">
            {assets.data.larger.map((asset) => (
              <li key={`${asset.asset_code}/${asset.blockchain_code}`}>
                <button
                  type="button"
                  class="asset asset-larger"
                  disabled={create.pending}
                  onClick={() => onAmount(asset.min_amount_eur_cents)}
                  aria-describedby="topup-larger-hint"
                  data-testid={`larger-${asset.asset_code}-${asset.blockchain_code}`}
                >
                  <span class="asset-name">
                    {asset.asset_name} <span class="muted">on {asset.blockchain_name}</span>
                  </span>
                  {asset.is_stable && <span class="badge badge-good">stablecoin</span>}
                  <MinimumText asset={asset} />
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </Section>
  );
}

/** The smallest top-up the pair takes now, as the provider quotes it. */
function MinimumText({ asset }: { asset: Asset }) {
  return (
    <span class="asset-minimum muted" data-testid={`asset-min-${asset.asset_code}-${asset.blockchain_code}`}>
      min {formatEurCents(asset.min_amount_eur_cents)}
    </span>
  );
}

const terminal = new Set(['paid', 'failed']);

/** The deposit to make and its status, polled with a growing interval until it is paid or has failed. */
function TopupStatus({ id }: { id: number }) {
  const { api } = useSession();
  const [topup, setTopup] = useState<Topup | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waitMs = 1000;
    const poll = async () => {
      try {
        const latest = await api.get<Topup>(`/v1/wallet/topup/${id}`);
        if (cancelled) return;
        setTopup(latest);
        setError(undefined);
        if (terminal.has(latest.status)) return;
        waitMs = Math.min(8000, waitMs * 1.5);
      } catch (failure) {
        if (cancelled) return;
        setError(failure);
        waitMs = Math.max(((failure as { retryAfterSeconds?: number }).retryAfterSeconds ?? 0) * 1000, Math.min(30_000, waitMs * 2));
      }
      timer = setTimeout(poll, waitMs);
    };
    void poll();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [api, id]);
  return (
    <>
      <h1>Top-up {id}</h1>
      <ErrorNotice action="Loading the top-up" error={error} />
      {!topup && !error && <Loading what="the top-up" />}
      {topup && <DepositInstructions topup={topup} />}
      <p>
        <a href={routeHref('wallet')}>Back to the wallet</a>
      </p>
    </>
  );
}

function DepositInstructions({ topup }: { topup: Topup }) {
  const target = paymentUri(topup);
  return (
    <Section title="3. Send the coin" actions={<StatusBadge status={topup.status} />}>
      <div class="deposit">
        <QrCode
          text={target.uri}
          label={`QR code: ${target.kind === 'address' ? 'the deposit address' : 'a payment link with the exact amount'}`}
        />
        <dl class="details">
          <dt>Status</dt>
          <dd aria-live="polite" data-testid="topup-status">
            {topup.status}
            {topup.status === 'partial' &&
              ` — ${formatEurCents(topup.credited_eur_cents)} of ${formatEurCents(topup.amount_eur_cents)} received`}
            {topup.status === 'paid' && ` — ${formatEurCents(topup.credited_eur_cents)} credited`}
          </dd>
          <dt>Send exactly</dt>
          <dd>
            <code data-testid="topup-amount">
              {topup.deposit_amount_decimal} {topup.asset_code}
            </code>{' '}
            <CopyButton text={topup.deposit_amount_decimal} label="the amount" />
          </dd>
          <dt>To ({topup.blockchain_code})</dt>
          <dd>
            <code class="break" data-testid="topup-address">
              {topup.deposit_address}
            </code>{' '}
            <CopyButton text={topup.deposit_address} label="the address" />
          </dd>
          <dt>Quote</dt>
          <dd>
            {terminal.has(topup.status) ? (
              `closed (it was valid until ${formatDate(topup.expires_at)})`
            ) : (
              <Countdown expiresAt={topup.expires_at} />
            )}
            <span class="muted"> (for {formatEurCents(topup.amount_eur_cents)})</span>
          </dd>
        </dl>
      </div>
      {topup.status !== 'paid' && (
        <p class="muted">
          Send on the {topup.blockchain_code} network only. The balance moves when the payment is confirmed; this page follows it by itself.
        </p>
      )}
    </Section>
  );
}
