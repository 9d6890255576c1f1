import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export interface PortalLocation {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();
let moves = 0;
const notify = () => {
  moves++;
  for (const listener of listeners) listener();
};
window.addEventListener('popstate', notify);

/** Whether the page has changed in place (a link followed without a reload, back or forward) since it loaded. */
export const movedInPlace = (): boolean => moves > 0;

const current = (): PortalLocation => ({ path: location.pathname, query: new URLSearchParams(location.search) });

/** Goes to a portal URL without reloading; the URL holds the whole page state, so it can be shared. */
export function navigate(to: string, { replace = false } = {}): void {
  if (to === `${location.pathname}${location.search}`) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', to);
  notify();
}

/** The current path and query; re-renders the caller when they change. */
export function useLocation(): PortalLocation {
  const [where, setWhere] = useState(current);
  useEffect(() => {
    const listener = () => setWhere(current());
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return where;
}

/** A URL of `path` with the non-empty entries of `query`. */
export function urlOf(path: string, query: Record<string, string | number | boolean | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

type LinkProps = Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href'> & { href: string; children: ComponentChildren };

/** A link inside the portal: followed without a reload, opened in a new tab as usual. */
export function Link({ href, children, ...rest }: LinkProps) {
  const follow = (event: MouseEvent) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    ) {
      return;
    }
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={follow} {...rest}>
      {children}
    </a>
  );
}
