import { formatCount } from '../format.js';
import { Link } from '../router.js';

export interface FacetValue {
  value: string | number;
  count: number;
}

/**
 * One facet as a list of bars, longest first. Each bar is a link to the search with its value as
 * the filter, so it can be clicked, opened in a new tab or reached with the keyboard.
 */
export function FacetBars({
  id,
  title,
  values,
  hrefOf,
  labelOf = String,
  active,
}: {
  id: string;
  title: string;
  values: readonly FacetValue[];
  hrefOf: (value: string | number) => string;
  labelOf?: (value: string | number) => string;
  /** The value the search already filters on. */
  active?: string | undefined;
}) {
  const headingId = `facet-${id}`;
  const top = Math.max(1, ...values.map((entry) => entry.count));
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      {values.length === 0 ? (
        <p class="empty">No values.</p>
      ) : (
        <ul class="bars">
          {values.map((entry) => {
            const label = labelOf(entry.value);
            const current = active !== undefined && String(entry.value).toLowerCase() === active.toLowerCase();
            return (
              <li key={String(entry.value)}>
                <Link
                  class="facet"
                  href={hrefOf(entry.value)}
                  aria-current={current ? 'true' : undefined}
                  title={`Filter on ${label} (${formatCount(entry.count)} records)`}
                >
                  <span class="bar" style={{ width: `${(entry.count / top) * 100}%` }} />
                  <span class="label">{label}</span>
                  <span class="count">{formatCount(entry.count)}</span>
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
