import { useEffect, useState } from 'preact/hooks';
import { PORTAL_PAGES, safeReturnPath } from '../../core/portal/pages.js';
import { signIn } from '../api.js';
import { ErrorMessage } from '../components/status.js';
import { useLocation } from '../router.js';

/** Why the visitor was sent here, in words (the server names it in `reason`). */
const REASONS: Record<string, string> = {
  revoked: 'Your token has been revoked. Sign in with another token.',
  expired: 'Your token has expired because it was not used for a while. Sign in with another token.',
  unknown: 'Your token is not known to this server. Sign in with another token.',
};

export function SignInPage() {
  const { query } = useLocation();
  const [token, setToken] = useState('');
  const [message, setMessage] = useState<string | undefined>(REASONS[query.get('reason') ?? '']);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Vulnscope';
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMessage(undefined);
    try {
      await signIn(token);
      // A full load, so every page starts from the signed-in server state.
      location.assign(safeReturnPath(query.get('next')) ?? PORTAL_PAGES.exposure);
    } catch (error) {
      setMessage(error instanceof Error ? error.message : String(error));
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Vulnscope</h1>
      <p>Sign in with an API token. The token is kept in a cookie this site's scripts cannot read.</p>
      <form onSubmit={submit} method="post" aria-describedby={message ? 'sign-in-error' : undefined}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(event) => setToken((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {message ? (
        <div id="sign-in-error">
          <ErrorMessage message={message} />
        </div>
      ) : null}
      <p class="hint">
        An operator creates tokens on the server with <code>vulnscope token create</code>.
      </p>
    </main>
  );
}
