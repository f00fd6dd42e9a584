import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { explainError } from '../domain/error-advice';

export function ErrorNotice({ action, error }: { action: string; error: unknown }) {
  if (!error) return null;
  const explanation = explainError(action, error);
  return (
    <div class="notice notice-error" role="alert">
      <strong>{explanation.title}</strong>
      <p>{explanation.detail}</p>
      <p>{explanation.advice}</p>
      {explanation.requestId && <p class="muted">Request id: {explanation.requestId}</p>}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Shown where write actions would be, when the key is read-only. */
export function ReadOnlyNotice({ what }: { what: string }) {
  return (
    <p class="notice notice-info" data-testid="read-only-notice">
      {what} needs the full key: this is a read-only key (rk_…), which may only look. Sign out and sign in with the full key (sk_…) to make
      changes.
    </p>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
    setTimeout(() => setCopied('idle'), 2000);
  };
  return (
    <button type="button" class="button-small" onClick={copy} aria-label={`Copy ${label}`}>
      {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Select and copy' : 'Copy'}
    </button>
  );
}

const statusTone: Record<string, string> = {
  paid: 'good',
  filled: 'good',
  placed: 'good',
  closed: 'good',
  modified: 'good',
  active: 'good',
  enabled: 'good',
  ok: 'good',
  connected: 'good',
  pending: 'wait',
  partial: 'wait',
  past_due: 'warn',
  unknown: 'warn',
  skipped: 'warn',
  nothing_matched: 'neutral',
  disabled: 'warn',
  failed: 'bad',
  rejected: 'bad',
  suspended: 'bad',
  unavailable: 'bad',
  expired: 'bad',
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${statusTone[status] ?? 'neutral'}`}>{status.replace(/_/g, ' ')}</span>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <div class="card-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A table that scrolls sideways in its own box on a narrow screen; focusable so the keyboard can scroll it too. */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus for keyboard users (WCAG 2.1.1).
    <section class="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
