import type { ComponentChildren } from 'preact';
import { Link } from '../router.js';

/** A labelled text field of a filter form; `hint` is read with it by screen readers. */
export function TextField({
  name,
  label,
  value,
  onInput,
  placeholder,
  hint,
}: {
  name: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  placeholder?: string;
  hint?: string;
}) {
  const id = `filter-${name}`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="text"
        value={value}
        placeholder={placeholder}
        autoComplete="off"
        spellcheck={false}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onInput={(event) => onInput((event.target as HTMLInputElement).value)}
      />
      {hint ? (
        <span id={`${id}-hint`} class="field-hint">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/**
 * A labelled select. A value the options do not hold (a crafted or outdated URL) is kept as an
 * extra option, so the form shows what is being searched.
 */
export function SelectField({
  name,
  label,
  value,
  options,
  onChange,
}: {
  name: string;
  label: string;
  value: string;
  options: Array<{ value: string; label: string }>;
  onChange: (value: string) => void;
}) {
  const id = `filter-${name}`;
  const all = options.some((option) => option.value === value) ? options : [...options, { value, label: value }];
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(event) => onChange((event.target as HTMLSelectElement).value)}
      >
        {all.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Previous / next links of a paged result (the page number sits in the URL). */
export function Pager({
  page,
  pages,
  hrefOf,
  label,
}: {
  page: number;
  pages: number;
  hrefOf: (page: number) => string;
  label: string;
}) {
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={label}>
      {page > 1 ? (
        <Link href={hrefOf(page - 1)}>← Previous</Link>
      ) : (
        <span class="pager-off" aria-hidden="true">
          ← Previous
        </span>
      )}
      <span>
        Page {page.toLocaleString('en')} of {pages.toLocaleString('en')}
      </span>
      {page < pages ? (
        <Link href={hrefOf(page + 1)}>Next →</Link>
      ) : (
        <span class="pager-off" aria-hidden="true">
          Next →
        </span>
      )}
    </nav>
  );
}

/** A table that scrolls sideways on narrow screens, reachable and scrollable by keyboard. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/** A positive page number from the URL, else 1. */
export function pageOf(text: string | null): number {
  const page = Number.parseInt(text ?? '', 10);
  return Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1;
}

/** `n` things, with the thousands separated. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
