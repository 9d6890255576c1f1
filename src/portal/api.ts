import { Vulnscope, VulnscopeApiError } from '../client/index.js';
import { PORTAL_SESSION_PATH } from '../core/portal/pages.js';

/** The API as the signed-in visitor: the browser sends the `token` cookie with each request. */
export const api = new Vulnscope({ baseUrl: location.origin, cookie: true, maxRetries: 1, timeoutMs: 60_000 });

/** What an API failure says, for a message on the page. */
export function messageOf(error: unknown): string {
  if (error instanceof VulnscopeApiError) {
    const said = error.messages.join('; ');
    return said || error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

async function session(method: 'POST' | 'DELETE', body?: unknown): Promise<Response> {
  return fetch(PORTAL_SESSION_PATH, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    credentials: 'same-origin',
  });
}

/** Signs in with a token: the server checks it and sets the cookie. Throws the server's message. */
export async function signIn(token: string): Promise<void> {
  const response = await session('POST', { token });
  if (response.ok) return;
  const answer = (await response.json().catch(() => undefined)) as { errors?: string[] } | undefined;
  throw new Error(answer?.errors?.join('; ') || `sign-in failed (HTTP ${response.status})`);
}

export async function signOut(): Promise<void> {
  await session('DELETE');
}
