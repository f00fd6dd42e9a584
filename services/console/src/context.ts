import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import type { ApiClient } from './api/client';

/** Routes the API offers beyond what the console needs, read from its OpenAPI document. */
export interface Features {
  modifyOrders: boolean;
  accountSettings: boolean;
  /** The path template of a webhook test send, when the API has one. */
  webhookTestPath?: string;
}

export interface Session {
  api: ApiClient;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

async function detectFeatures(): Promise<Features> {
  try {
    const response = await fetch('/openapi.json', { signal: AbortSignal.timeout(10_000), credentials: 'omit' });
    const document = (await response.json()) as { paths?: Record<string, Record<string, unknown>> };
    const paths = Object.keys(document.paths ?? {});
    return {
      modifyOrders: paths.includes('/v1/orders/modify'),
      accountSettings: paths.some((path) => /^\/v1\/accounts\/\{[^}]+\}\/settings$/.test(path)),
      webhookTestPath: paths.find((path) => /^\/v1\/webhook_endpoints\/\{[^}]+\}\/test$/.test(path)),
    };
  } catch {
    return { modifyOrders: false, accountSettings: false };
  }
}

const noFeatures: Features = { modifyOrders: false, accountSettings: false };
let detected: Promise<Features> | undefined;

/**
 * The optional routes, read once per page load and only by the pages that use them: the document is large, and the
 * wallet (the first page) needs none of it.
 */
export function useFeatures(): Features {
  const [features, setFeatures] = useState<Features>(noFeatures);
  useEffect(() => {
    let cancelled = false;
    detected ??= detectFeatures();
    void detected.then((value) => !cancelled && setFeatures(value));
    return () => {
      cancelled = true;
    };
  }, []);
  return features;
}
