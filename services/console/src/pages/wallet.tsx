import type { Wallet } from '../api/types';
import { Empty, ErrorNotice, Loading, Section, StatusBadge } from '../components/common';
import { ForecastChart } from '../components/forecast-chart';
import { useSession } from '../context';
import { forecastCharges } from '../domain/forecast';
import { formatDate, formatEurCents } from '../domain/money';
import { usePolled } from '../hooks';
import { routeHref } from '../routes';

/** The balance, money held beyond the cap, the next 30 days of charges against it, and top-ups awaiting coin. */
export function WalletPage() {
  const { api } = useSession();
  const wallet = usePolled(() => api.get<Wallet>('/v1/wallet'), [api], 15_000);
  return (
    <>
      <h1>Wallet</h1>
      <ErrorNotice action="Loading the wallet" error={wallet.error} />
      {!wallet.data && wallet.loading && <Loading what="the wallet" />}
      {wallet.data && <WalletView wallet={wallet.data} readOnly={api.readOnly} />}
    </>
  );
}

function WalletView({ wallet, readOnly }: { wallet: Wallet; readOnly: boolean }) {
  const forecast = forecastCharges(wallet.balance_eur_cents, wallet.upcoming, Date.now());
  return (
    <>
      <div class="figures">
        <div class="figure" data-testid="wallet-balance">
          <span class="figure-label">Balance</span>
          <span class="figure-value">{formatEurCents(wallet.balance_eur_cents)}</span>
        </div>
        <div class="figure">
          <span class="figure-label">Held (above the EUR 1,000 cap)</span>
          <span class="figure-value">{formatEurCents(wallet.held_eur_cents)}</span>
        </div>
        <div class="figure">
          <span class="figure-label">Due in 30 days</span>
          <span class={wallet.covers_upcoming ? 'figure-value' : 'figure-value text-bad'}>
            {formatEurCents(wallet.upcoming_total_eur_cents)}
          </span>
        </div>
        {!readOnly && (
          <a class="button" href={routeHref('topup')}>
            Top up
          </a>
        )}
      </div>
      <Section title="Next 30 days of charges">
        {wallet.upcoming.length === 0 ? (
          <Empty>No charges in the next 30 days: no seat or private server renews before then.</Empty>
        ) : (
          <>
            <ForecastChart forecast={forecast} />
            <table>
              <caption class="visually-hidden">Upcoming charges</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col" class="number">
                    Amount
                  </th>
                  <th scope="col" class="number">
                    Balance after
                  </th>
                </tr>
              </thead>
              <tbody>
                {forecast.steps.map((step) => (
                  <tr key={`${step.atMs}-${step.label}`} class={step.remainingEurCents < 0 ? 'row-bad' : undefined}>
                    <td>{formatDate(new Date(step.atMs).toISOString())}</td>
                    <td>{step.label}</td>
                    <td class="number">{formatEurCents(step.chargeEurCents)}</td>
                    <td class="number">{formatEurCents(step.remainingEurCents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Section>
      <Section title="Pending top-ups">
        {wallet.pending_topups.length === 0 ? (
          <Empty>No top-up is waiting for coin.</Empty>
        ) : (
          <ul class="list">
            {wallet.pending_topups.map((topup) => (
              <li key={topup.id}>
                <a href={routeHref('topup', String(topup.id))}>
                  Top-up {topup.id}: {formatEurCents(topup.amount_eur_cents)} in {topup.asset_code} on {topup.blockchain_code}
                </a>{' '}
                <StatusBadge status={topup.status} /> <span class="muted">expires {formatDate(topup.expires_at)}</span>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
