import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiClient } from './api/client';
import { SessionContext } from './context';
import { AccountsPage } from './pages/accounts';
import { BatchesPage } from './pages/batches';
import { PositionsPage } from './pages/positions';
import { SignIn } from './pages/sign-in';
import { SubscriptionPage } from './pages/subscription';
import { TopupPage } from './pages/topup';
import { TradePage } from './pages/trade';
import { WalletPage } from './pages/wallet';
import { WebhooksPage } from './pages/webhooks';
import { type PageId, pages, routeHref, useRoute } from './routes';
import { forgetKey, loadKey, saveKey } from './session';

const pageComponents: Record<PageId, (props: { argument?: string }) => preact.JSX.Element> = {
  wallet: WalletPage,
  topup: TopupPage,
  subscription: SubscriptionPage,
  accounts: AccountsPage,
  positions: PositionsPage,
  trade: TradePage,
  batches: BatchesPage,
  webhooks: WebhooksPage,
};

export function App() {
  const [key, setKey] = useState<string | undefined>(() => loadKey());
  const route = useRoute();
  const api = useMemo(() => (key ? new ApiClient(key) : undefined), [key]);

  useEffect(() => {
    const title = pages.find((page) => page.id === route.page)?.title ?? 'Console';
    document.title = `${key ? title : 'Sign in'} · MTX console`;
  }, [route.page, key]);

  if (!api)
    return (
      <SignIn
        onSignedIn={(accepted) => {
          saveKey(accepted);
          setKey(accepted);
        }}
      />
    );

  const Page = pageComponents[route.page];
  const signOut = () => {
    forgetKey();
    setKey(undefined);
  };
  return (
    <SessionContext.Provider value={{ api }}>
      <header class="top">
        <a class="brand" href={routeHref('wallet')}>
          MTX console
        </a>
        <span class={api.readOnly ? 'badge badge-warn' : 'badge badge-good'} data-testid="key-kind">
          {api.readOnly ? 'read-only key' : 'full key'}
        </span>
        <button type="button" class="button-quiet" onClick={signOut} data-testid="sign-out">
          Sign out
        </button>
      </header>
      <nav class="tabs" aria-label="Console pages">
        {pages.map((page) => (
          <a key={page.id} href={routeHref(page.id)} aria-current={page.id === route.page ? 'page' : undefined}>
            {page.title}
          </a>
        ))}
      </nav>
      <main id="main">
        <Page argument={route.argument} />
      </main>
    </SessionContext.Provider>
  );
}
