import type { Account, Servers, Subscription, Wallet } from '../api/types';
import { Empty, ErrorNotice, Loading, Section, StatusBadge, TableScroll } from '../components/common';
import { useSession } from '../context';
import { formatDate, formatEurCents } from '../domain/money';
import { usePolled } from '../hooks';

/** Seats with their own renewal dates and accounts, free slots, private servers, and what each costs next. */
export function SubscriptionPage() {
  const { api } = useSession();
  const view = usePolled(
    async () => {
      const [subscription, servers, accounts, wallet] = await Promise.all([
        api.get<Subscription>('/v1/subscription'),
        api.get<Servers>('/v1/servers'),
        api.get<{ accounts: Account[] }>('/v1/accounts'),
        api.get<Wallet>('/v1/wallet'),
      ]);
      return { subscription, servers: servers.servers, accounts: accounts.accounts, upcoming: wallet.upcoming };
    },
    [api],
    30_000,
  );
  return (
    <>
      <h1>Subscription</h1>
      <ErrorNotice action="Loading the subscription" error={view.error} />
      {!view.data && view.loading && <Loading what="the subscription" />}
      {view.data && <SubscriptionView {...view.data} />}
    </>
  );
}

type Upcoming = Wallet['upcoming'];

/** The next charge of a seat or server: the projection's item due at its renewal date under its label. */
function nextCharge(upcoming: Upcoming, kind: 'seat' | 'server', labels: string[], paidUntil: string): string {
  const due = upcoming.find(
    (item) => item.kind === kind && labels.includes(item.label) && Math.abs(Date.parse(item.when) - Date.parse(paidUntil)) < 86_400_000,
  );
  return due ? `${formatEurCents(due.amount_eur_cents)} on ${formatDate(due.when)}` : 'not within 30 days';
}

function SubscriptionView({
  subscription,
  servers,
  accounts,
  upcoming,
}: {
  subscription: Subscription;
  servers: Servers['servers'];
  accounts: Account[];
  upcoming: Upcoming;
}) {
  const accountById = new Map(accounts.map((account) => [account.id, account]));
  const freeSlots = subscription.seats.total - subscription.seats.used;
  return (
    <>
      <div class="figures">
        <div class="figure">
          <span class="figure-label">Status</span>
          <span class="figure-value">
            <StatusBadge status={subscription.status} />
          </span>
        </div>
        <div class="figure">
          <span class="figure-label">Seats used</span>
          <span class="figure-value">
            {subscription.seats.used} of {subscription.seats.total}
          </span>
        </div>
        <div class="figure">
          <span class="figure-label">Free slots</span>
          <span class="figure-value">{freeSlots}</span>
        </div>
        <div class="figure">
          <span class="figure-label">Next charge</span>
          <span class={subscription.wallet?.covers_next_charge === false ? 'figure-value text-bad' : 'figure-value'}>
            {subscription.wallet?.next_charge_eur_cents != null ? formatEurCents(subscription.wallet.next_charge_eur_cents) : 'none'}
          </span>
          <span class="muted">{formatDate(subscription.wallet?.next_charge_at)}</span>
        </div>
      </div>
      {subscription.cancel_at_period_end && <p class="notice notice-info">The subscription ends at the end of this period.</p>}
      {subscription.grace_ends_at && (
        <p class="notice notice-error">Payment is overdue: the grace period ends {formatDate(subscription.grace_ends_at)}.</p>
      )}
      <Section title="Seats">
        {subscription.seat_details.length === 0 ? (
          <Empty>No seats yet: a seat is bought when an account is connected.</Empty>
        ) : (
          <TableScroll label="Seats">
            <table>
              <thead>
                <tr>
                  <th scope="col">Seat</th>
                  <th scope="col">Account</th>
                  <th scope="col">Status</th>
                  <th scope="col">Paid until</th>
                  <th scope="col">Costs next</th>
                </tr>
              </thead>
              <tbody>
                {subscription.seat_details.map((seat) => {
                  const account = seat.account_id ? accountById.get(seat.account_id) : undefined;
                  return (
                    <tr key={seat.id}>
                      <td>
                        <code>{seat.id}</code>
                        {seat.bonus && <span class="badge badge-neutral">bonus</span>}
                      </td>
                      <td>{account ? `${account.label || account.login} (${account.platform})` : seat.account_id || 'free slot'}</td>
                      <td>
                        <StatusBadge status={seat.status} />
                      </td>
                      <td>{formatDate(seat.paid_until)}</td>
                      <td>
                        {seat.bonus ? 'free' : nextCharge(upcoming, 'seat', [account?.label ?? '', seat.account_id ?? ''], seat.paid_until)}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Section>
      <Section title="Private servers">
        {servers.length === 0 ? (
          <Empty>No private servers.</Empty>
        ) : (
          <TableScroll label="Private servers">
            <table>
              <thead>
                <tr>
                  <th scope="col">Server</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Status</th>
                  <th scope="col">Paid until</th>
                  <th scope="col">Costs next</th>
                </tr>
              </thead>
              <tbody>
                {servers.map((server) => (
                  <tr key={server.id}>
                    <td>{server.label}</td>
                    <td>
                      {server.plan} ({formatEurCents(server.price_eur_cents)}/month)
                    </td>
                    <td>
                      <StatusBadge status={server.status} />
                    </td>
                    <td>{formatDate(server.paid_until)}</td>
                    <td>
                      {server.cancel_at_period_end
                        ? 'nothing: ends at period end'
                        : nextCharge(upcoming, 'server', [server.label], server.paid_until)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Section>
    </>
  );
}
