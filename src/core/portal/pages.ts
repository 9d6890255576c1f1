/**
 * The portal's page paths. The server answers them with the portal's page (or sends a visitor
 * without a valid token to the sign-in page); the portal's router shows the matching page. A
 * page's subject travels in the query string (`/host?ip=…&port=…`), so the list is complete.
 */
export const PORTAL_PAGES = {
  exposure: '/',
  signIn: '/sign-in',
  host: '/host',
  advisories: '/advisories',
  advisory: '/advisory',
  cpe: '/cpe',
  feeds: '/feeds',
  tokens: '/tokens',
} as const;

export type PortalPage = keyof typeof PORTAL_PAGES;

const PAGE_PATHS: ReadonlySet<string> = new Set(Object.values(PORTAL_PAGES));

export const isPortalPage = (path: string): boolean => PAGE_PATHS.has(path);

/** Where the portal's static files are served. */
export const PORTAL_ASSET_PREFIX = '/assets/';
/** Signing in (POST) and out (DELETE). */
export const PORTAL_SESSION_PATH = '/portal/session';

/**
 * A page to return to after signing in, or undefined: only a portal path of this site (a path
 * beginning with one `/`, no backslash), so a crafted link cannot send a visitor elsewhere.
 */
export function safeReturnPath(next: string | null | undefined): string | undefined {
  if (!next?.startsWith('/') || next.startsWith('//') || next.includes('\\')) return undefined;
  const path = next.split(/[?#]/)[0]!;
  return isPortalPage(path) && path !== PORTAL_PAGES.signIn ? next : undefined;
}
