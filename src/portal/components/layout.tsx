import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { PORTAL_PAGES } from '../../core/portal/pages.js';
import { signOut } from '../api.js';
import { Link, movedInPlace, useLocation } from '../router.js';

const NAVIGATION: Array<{ href: string; label: string }> = [
  { href: PORTAL_PAGES.exposure, label: 'Exposure' },
  { href: PORTAL_PAGES.advisories, label: 'Advisories' },
  { href: PORTAL_PAGES.cpe, label: 'CPE search' },
  { href: PORTAL_PAGES.feeds, label: 'Feeds & backups' },
  { href: PORTAL_PAGES.tokens, label: 'Tokens' },
];

/** The signed-in frame: a skip link, the navigation, sign-out, and the page with its title. */
export function Layout({ title, children }: { title: string; children: ComponentChildren }) {
  const { path } = useLocation();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Vulnscope`;
  }, [title]);
  // After moving to another page in place, focus its heading, as a page load would for screen
  // readers; never after a load, where it would take focus from where the visitor put it.
  useEffect(() => {
    if (movedInPlace()) heading.current?.focus();
  }, [path]);
  const leave = async () => {
    await signOut();
    location.assign(PORTAL_PAGES.signIn);
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href={PORTAL_PAGES.exposure} class="brand">
          Vulnscope
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={item.href === path ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="quiet" onClick={leave}>
          Sign out
        </button>
      </header>
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {children}
      </main>
    </>
  );
}
