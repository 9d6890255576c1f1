/** The contract's cookie carrier of the token; the portal's sign-in sets it. */
export const TOKEN_COOKIE = 'token';

interface CookieOptions {
  /** Set when the public URL is HTTPS. */
  secure: boolean;
  maxAgeSeconds: number;
}

/**
 * `HttpOnly` keeps it from page scripts; `SameSite=Lax` sends it on a link followed from mail or
 * chat but not on another site's POST.
 */
export function tokenCookie(token: string, { secure, maxAgeSeconds }: CookieOptions): string {
  const parts = [`${TOKEN_COOKIE}=${encodeURIComponent(token)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  parts.push(`Max-Age=${maxAgeSeconds}`);
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedTokenCookie(secure: boolean): string {
  return tokenCookie('', { secure, maxAgeSeconds: 0 });
}
