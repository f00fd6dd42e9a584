/**
 * The key lives in this tab's sessionStorage only: gone when the tab closes, never written to localStorage,
 * never put in a URL.
 */
const storageName = 'mtx.console.key';

export function loadKey(): string | undefined {
  try {
    return sessionStorage.getItem(storageName) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveKey(key: string): void {
  sessionStorage.setItem(storageName, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(storageName);
}

/** A key as the API issues them: sk_ (full) or rk_ (read-only), then base62. */
export function looksLikeKey(text: string): boolean {
  return /^(sk|rk)_[0-9A-Za-z_]{8,200}$/.test(text.trim());
}
