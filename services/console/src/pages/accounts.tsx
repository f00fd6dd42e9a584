import type { Account, AccountState } from '../api/types';
import { AccountSettingsPanel } from '../components/account-settings';
import { Empty, ErrorNotice, Loading, StatusBadge } from '../components/common';
import { useFeatures, useSession } from '../context';
import { formatDate, formatNumber } from '../domain/money';
import { usePolled } from '../hooks';

/** Each account's live state, refreshed every 10 s (backing off while it fails), and its settings where the API has them. */
export function AccountsPage() {
  const { api } = useSession();
  const accounts = usePolled(() => api.get<{ accounts: Account[] }>('/v1/accounts'), [api], 60_000);
  return (
    <>
      <h1>Accounts</h1>
      <ErrorNotice action="Loading the accounts" error={accounts.error} />
      {!accounts.data && accounts.loading && <Loading what="the accounts" />}
      {accounts.data?.accounts.length === 0 && <Empty>No trading accounts are connected yet.</Empty>}
      <div class="cards">
        {accounts.data?.accounts.map((account) => (
          <AccountCard key={account.id} account={account} />
        ))}
      </div>
    </>
  );
}

function AccountCard({ account }: { account: Account }) {
  const { api } = useSession();
  const features = useFeatures();
  const state = usePolled(() => api.get<AccountState>(`/v1/accounts/${encodeURIComponent(account.id)}/state`), [api, account.id], 10_000);
  const live = state.data;
  return (
    <section class="card account" data-testid="account-card">
      <div class="card-head">
        <h2>
          {account.label || account.login} <span class="muted">{account.platform.toUpperCase()}</span>
        </h2>
        {live ? <StatusBadge status={live.connected ? 'connected' : 'unavailable'} /> : <span class="badge badge-neutral">…</span>}
      </div>
      <p class="muted">
        {account.server} · login {account.login} · symbols {account.symbol_suffix ? `end in ${account.symbol_suffix}` : 'have no suffix'} ·{' '}
        <code>{account.id}</code>
      </p>
      <ErrorNotice action="Reading the account's state" error={state.error} />
      {!live && state.loading && <Loading what="the live state" />}
      {live && (
        <dl class="details details-grid">
          <dt>Balance</dt>
          <dd>
            {formatNumber(live.balance)} {live.currency}
          </dd>
          <dt>Equity</dt>
          <dd>
            {formatNumber(live.equity)} {live.currency}
          </dd>
          <dt>Margin level</dt>
          <dd>{live.margin_level ? `${formatNumber(live.margin_level, 1)} %` : '—'}</dd>
          <dt>Free margin</dt>
          <dd>{formatNumber(live.free_margin)}</dd>
          <dt>Leverage</dt>
          <dd>{live.leverage ? `1:${live.leverage}` : '—'}</dd>
          <dt>Read</dt>
          <dd>
            {formatDate(live.server_time)} ({live.latency_ms} ms)
          </dd>
        </dl>
      )}
      {live && !live.connected && <p class="text-bad">{live.message || live.reason || 'The terminal is not connected.'}</p>}
      {features.accountSettings && <AccountSettingsPanel accountId={account.id} />}
    </section>
  );
}
