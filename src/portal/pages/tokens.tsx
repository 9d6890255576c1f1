import { useState } from 'preact/hooks';
import type { CreatedToken, Token } from '../../client/index.js';
import { api, messageOf } from '../api.js';
import { Layout } from '../components/layout.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../components/use-api.js';

const when = (at: string | null) => (at ? new Date(at).toLocaleString() : 'never');
const feedsText = (feeds: string[]) => (feeds.includes('*') ? 'every feed' : feeds.length ? feeds.join(', ') : 'none');
const rateText = (token: Token) =>
  token.rate_limit === 'default' ? `default (${token.budgets.join(', ')})` : token.budgets.join(', ');

/** The signed-in token's own facts, and the tokens it may manage (every token for an admin). */
export function TokensPage() {
  const [version, setVersion] = useState(0);
  const self = useApi('self', () => api.tokenSelf());
  const feeds = useApi('feeds', () => api.entitlements());
  const list = useApi(self.state === 'done' && !self.data.child ? `list-${version}` : undefined, (signal) =>
    api.tokens({ signal }),
  );
  // Kept here, not in the table: the table is replaced while the list reloads after a change.
  const [notice, setNotice] = useState<string | undefined>();
  const changed = () => setVersion((v) => v + 1);
  return (
    <Layout title="Tokens">
      {self.state === 'loading' ? <Loading what="Loading your token" /> : null}
      {self.state === 'error' ? <ErrorMessage message={self.message} /> : null}
      {self.state === 'done' ? (
        <>
          <ThisToken token={self.data} />
          {self.data.child ? (
            <p class="notice">This is a child token: it cannot create or manage tokens.</p>
          ) : (
            <>
              <h2>{self.data.admin ? 'Every token' : 'Tokens you created'}</h2>
              {notice ? (
                <p class="notice" role="status">
                  {notice}
                </p>
              ) : null}
              {list.state === 'loading' ? <Loading what="Loading tokens" /> : null}
              {list.state === 'error' ? <ErrorMessage message={list.message} /> : null}
              {list.state === 'done' ? (
                <TokenTable
                  tokens={list.data.data}
                  selfId={self.data.id}
                  onRevoked={(message) => {
                    setNotice(message);
                    changed();
                  }}
                />
              ) : null}
              <CreateToken
                admin={self.data.admin}
                feeds={feeds.state === 'done' ? (feeds.data.entitlements.feeds ?? []) : []}
                onCreated={changed}
              />
            </>
          )}
        </>
      ) : null}
    </Layout>
  );
}

function ThisToken({ token }: { token: Token }) {
  return (
    <section aria-labelledby="this-token">
      <h2 id="this-token">Signed in as “{token.name}”</h2>
      <dl class="fields">
        <dt>Id</dt>
        <dd>{token.id}</dd>
        <dt>State</dt>
        <dd>{token.state}</dd>
        <dt>Kind</dt>
        <dd>{token.admin ? 'admin' : token.child ? `child of token ${token.parent_id}` : 'regular'}</dd>
        <dt>Feeds</dt>
        <dd>{feedsText(token.feeds)}</dd>
        <dt>Rate limit</dt>
        <dd>{rateText(token)}</dd>
        <dt>Created</dt>
        <dd>{when(token.created_at)}</dd>
        <dt>Last used</dt>
        <dd>{when(token.last_used_at)}</dd>
        <dt>Expires</dt>
        <dd>{when(token.expires_at)} unless used before</dd>
      </dl>
    </section>
  );
}

function TokenTable({
  tokens,
  selfId,
  onRevoked,
}: {
  tokens: Token[];
  selfId: number;
  onRevoked: (message: string) => void;
}) {
  const [confirming, setConfirming] = useState<number | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  if (tokens.length === 0) return <Empty>No tokens yet.</Empty>;
  const revoke = async (token: Token) => {
    setMessage(undefined);
    try {
      const revoked = await api.revokeToken(token.id);
      const children = revoked.children_revoked ? ` and ${revoked.children_revoked} child token(s)` : '';
      setConfirming(undefined);
      onRevoked(`Revoked “${token.name}”${children}.`);
    } catch (error) {
      setMessage(messageOf(error));
    }
  };
  return (
    <>
      {message ? <ErrorMessage message={message} /> : null}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col" class="number">
                Id
              </th>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Feeds</th>
              <th scope="col">Rate limit</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Kind</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => (
              <tr key={token.id}>
                <td class="number">{token.id}</td>
                <td>{token.name}</td>
                <td>{token.state}</td>
                <td>{feedsText(token.feeds)}</td>
                <td>{token.rate_limit === 'default' ? 'default' : String(token.rate_limit)}</td>
                <td>{when(token.last_used_at)}</td>
                <td>{when(token.expires_at)}</td>
                <td>{token.admin ? 'admin' : token.child ? `child of ${token.parent_id}` : 'regular'}</td>
                <td>
                  {token.state !== 'revoked' && token.id !== selfId ? (
                    confirming === token.id ? (
                      <span class="row-actions">
                        <button type="button" class="danger" onClick={() => revoke(token)}>
                          Confirm revoking {token.name}
                        </button>{' '}
                        <button type="button" class="secondary" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </span>
                    ) : (
                      <button type="button" class="secondary" onClick={() => setConfirming(token.id)}>
                        Revoke {token.name}
                      </button>
                    )
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function CreateToken({ admin, feeds, onCreated }: { admin: boolean; feeds: string[]; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [allFeeds, setAllFeeds] = useState(true);
  const [chosen, setChosen] = useState<Set<string> | undefined>();
  const [rateLimit, setRateLimit] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [created, setCreated] = useState<CreatedToken | undefined>();
  const selected = chosen ?? new Set(feeds);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setCreated(undefined);
    try {
      const body = {
        name: name.trim(),
        // A child may read only its parent's feeds: it names them; an admin may grant every feed.
        feeds: admin && allFeeds ? ['*'] : [...selected],
        ...(admin && rateLimit.trim()
          ? { rate_limit: rateLimit.trim() === 'unlimited' ? ('unlimited' as const) : Number(rateLimit) }
          : {}),
      };
      setCreated(await api.createToken(body));
      setName('');
      onCreated();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const toggle = (feed: string) => {
    const next = new Set(selected);
    if (next.has(feed)) next.delete(feed);
    else next.add(feed);
    setChosen(next);
  };

  return (
    <section aria-labelledby="create-token">
      <h2 id="create-token">Create a token</h2>
      <p class="hint">
        {admin
          ? 'Tokens created here are never admin tokens; an operator grants admin with “vulnscope token create --admin” on the server.'
          : 'A token you create is a child token: it spends your rate limit, reads at most your feeds, is revoked with yours and cannot create tokens. You may have 10.'}
      </p>
      <form class="stacked" onSubmit={submit}>
        <div>
          <label for="token-name">Name</label>
          <input
            id="token-name"
            required
            maxLength={200}
            value={name}
            onInput={(event) => setName((event.target as HTMLInputElement).value)}
          />
        </div>
        {admin ? (
          <div>
            <label for="token-rate">Rate limit (requests per window, “unlimited”, or empty for the default)</label>
            <input
              id="token-rate"
              value={rateLimit}
              inputMode="numeric"
              onInput={(event) => setRateLimit((event.target as HTMLInputElement).value)}
            />
          </div>
        ) : null}
        <fieldset>
          <legend>Feeds it may read</legend>
          {admin ? (
            <label class="check">
              <input type="checkbox" checked={allFeeds} onChange={() => setAllFeeds(!allFeeds)} /> Every feed
            </label>
          ) : null}
          {!admin || !allFeeds
            ? feeds.map((feed) => (
                <label class="check" key={feed}>
                  <input type="checkbox" checked={selected.has(feed)} onChange={() => toggle(feed)} /> {feed}
                </label>
              ))
            : null}
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create token'}
          </button>
        </div>
      </form>
      {error ? <ErrorMessage message={error} /> : null}
      {created ? <NewTokenSecret created={created} /> : null}
    </section>
  );
}

/** The new token's secret, shown this once. */
function NewTokenSecret({ created }: { created: CreatedToken }) {
  return (
    <div class="notice" role="status">
      <p>
        Created “{created.name}” (id {created.id}). Copy its token now: it is shown only this once.
      </p>
      <label for="new-token">New token</label>
      <input
        id="new-token"
        class="mono"
        readOnly
        value={created.token}
        onFocus={(event) => (event.target as HTMLInputElement).select()}
      />
    </div>
  );
}
