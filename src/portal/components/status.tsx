import type { ComponentChildren } from 'preact';

/** Shown while a request is under way; announced to screen readers. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="status" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

/** An API error as a message: the server's own words. */
export function ErrorMessage({ message }: { message: string }) {
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** Said when a request succeeded and found nothing. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
