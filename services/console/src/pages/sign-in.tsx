import { useState } from 'preact/hooks';
import { ApiClient } from '../api/client';
import { ErrorNotice } from '../components/common';
import { useAction } from '../hooks';
import { looksLikeKey } from '../session';

/** Asks for an API key and checks it with one read before keeping it (in this tab's sessionStorage only). */
export function SignIn({ onSignedIn }: { onSignedIn(key: string): void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const check = useAction<void>();
  const submit = (event: Event) => {
    event.preventDefault();
    const key = text.trim();
    if (!looksLikeKey(key)) {
      setProblem('A key starts with sk_ (full) or rk_ (read-only) followed by letters and digits.');
      return;
    }
    setProblem(undefined);
    void check.run(async () => {
      await new ApiClient(key).get('/v1/accounts');
      onSignedIn(key);
    });
  };
  return (
    <main id="main" class="sign-in">
      <h1>MTX console</h1>
      <form class="card" onSubmit={submit}>
        <h2>Sign in with an API key</h2>
        <p class="muted">
          The key stays in this browser tab only (session storage) and is sent to this API alone. Closing the tab or signing out forgets it.
        </p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={text}
          onInput={(event) => setText((event.target as HTMLInputElement).value)}
          aria-describedby={problem ? 'api-key-problem' : undefined}
        />
        {problem && (
          <p id="api-key-problem" class="text-bad">
            {problem}
          </p>
        )}
        <button type="submit" disabled={check.pending}>
          {check.pending ? 'Checking…' : 'Sign in'}
        </button>
        <ErrorNotice action="Signing in" error={check.error} />
      </form>
    </main>
  );
}
