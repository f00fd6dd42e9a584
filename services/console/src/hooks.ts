import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * Loads `load()` now and, with `intervalMs`, again and again: after a failure the wait doubles up to
 * `maxIntervalMs` (a struggling API is not hammered), and the first success goes back to `intervalMs`. The
 * last good data stays on screen while a refresh fails.
 */
export function usePolled<T>(load: () => Promise<T>, dependencies: unknown[], intervalMs?: number, maxIntervalMs = 60_000): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waitMs = intervalMs ?? 0;
    const run = async () => {
      setLoading(true);
      try {
        const value = await loadRef.current();
        if (cancelled) return;
        setData(value);
        setError(undefined);
        waitMs = intervalMs ?? 0;
      } catch (failure) {
        if (cancelled) return;
        setError(failure);
        const retryAfterMs = ((failure as { retryAfterSeconds?: number }).retryAfterSeconds ?? 0) * 1000;
        waitMs = Math.max(retryAfterMs, Math.min(maxIntervalMs, Math.max(1000, waitMs * 2)));
      } finally {
        if (!cancelled) setLoading(false);
      }
      if (!cancelled && intervalMs !== undefined) timer = setTimeout(run, waitMs);
    };
    void run();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [...dependencies, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}

/** A write in flight: `run` refuses to start a second while one runs (a double click sends once). */
export function useAction<T>(): {
  pending: boolean;
  error: unknown;
  result: T | undefined;
  run(work: () => Promise<T>): Promise<void>;
  reset(): void;
} {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [result, setResult] = useState<T | undefined>(undefined);
  const inFlight = useRef(false);
  const run = useCallback(async (work: () => Promise<T>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setPending(true);
    setError(undefined);
    try {
      setResult(await work());
    } catch (failure) {
      setError(failure);
    } finally {
      inFlight.current = false;
      setPending(false);
    }
  }, []);
  const reset = useCallback(() => {
    setError(undefined);
    setResult(undefined);
  }, []);
  return { pending, error, result, run, reset };
}
