import { useEffect, useState } from 'preact/hooks';

/** The pages, in the navigation's order. The route lives in the URL's fragment: never sent, never holding the key. */
export const pages = [
  { id: 'wallet', title: 'Wallet' },
  { id: 'topup', title: 'Top up' },
  { id: 'subscription', title: 'Subscription' },
  { id: 'accounts', title: 'Accounts' },
  { id: 'positions', title: 'Positions' },
  { id: 'trade', title: 'Trade ticket' },
  { id: 'batches', title: 'Batches' },
  { id: 'webhooks', title: 'Webhooks' },
] as const;

export type PageId = (typeof pages)[number]['id'];

export interface Route {
  page: PageId;
  /** What follows the page (a batch id, say). */
  argument?: string;
}

export function parseRoute(hash: string): Route {
  const [page, argument] = hash.replace(/^#\/?/, '').split('/');
  const known = pages.find((entry) => entry.id === page);
  return { page: known?.id ?? 'wallet', argument: argument ? decodeURIComponent(argument) : undefined };
}

export function routeHref(page: PageId, argument?: string): string {
  return `#/${page}${argument ? `/${encodeURIComponent(argument)}` : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
