import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api.js';

export type ApiState<T> =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'done'; data: T }
  | { state: 'error'; message: string };

/**
 * Runs `load` whenever `key` changes (undefined: nothing to load) and aborts the previous run, so
 * a slow answer to an old query never replaces a newer one.
 */
export function useApi<T>(key: string | undefined, load: (signal: AbortSignal) => Promise<T>): ApiState<T> {
  const [result, setResult] = useState<ApiState<T>>(key === undefined ? { state: 'idle' } : { state: 'loading' });
  useEffect(() => {
    if (key === undefined) {
      setResult({ state: 'idle' });
      return;
    }
    const controller = new AbortController();
    setResult({ state: 'loading' });
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setResult({ state: 'done', data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setResult({ state: 'error', message: messageOf(error) });
      },
    );
    return () => controller.abort();
  }, [key]);
  return result;
}
