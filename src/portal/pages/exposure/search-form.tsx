import { useState } from 'preact/hooks';
import { PORTAL_PAGES } from '../../../core/portal/pages.js';
import { Link, navigate } from '../../router.js';
import {
  CLASSIFICATION_TYPES,
  FILTER_FIELDS,
  type FilterField,
  ORDERS,
  type Search,
  SORTS,
  searchUrl,
} from './query.js';

type Option = { value: string; label: string };

/** Left out of the URL: the API's own defaults. */
const DEFAULTS: Search = { sort: 'timestamp', order: 'desc' };

/** A select of fixed values that still shows a value from the URL it does not know (as text). */
function Choice({
  id,
  value,
  options,
  anyLabel,
  onChange,
}: {
  id: string;
  value: string;
  options: readonly Option[];
  anyLabel?: string;
  onChange: (value: string) => void;
}) {
  const known = value === '' || options.some((option) => option.value === value);
  return (
    <select id={id} name={id} value={value} onChange={(event) => onChange((event.target as HTMLSelectElement).value)}>
      {anyLabel === undefined ? null : <option value="">{anyLabel}</option>}
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
      {known ? null : <option value={value}>{value}</option>}
    </select>
  );
}

function Field({ field, value, onChange }: { field: FilterField; value: string; onChange: (value: string) => void }) {
  const id = `filter-${field.name}`;
  return (
    <div class="field">
      <label for={id}>{field.label}</label>
      {field.options ? (
        <Choice id={id} value={value} options={field.options} anyLabel="Any" onChange={onChange} />
      ) : (
        <input
          id={id}
          name={field.name}
          type="text"
          value={value}
          placeholder={field.placeholder}
          inputMode={field.numeric ? 'numeric' : undefined}
          list={field.name === 'classifications' ? 'classification-types' : undefined}
          autoComplete="off"
          spellcheck={false}
          onInput={(event) => onChange((event.target as HTMLInputElement).value)}
        />
      )}
    </div>
  );
}

/**
 * Every filter of the index as a form field, filled from the URL. Submitting goes to the URL of
 * the new search (page 1), so each search can be bookmarked, shared and gone back to.
 */
export function SearchForm({ search }: { search: Search }) {
  const [values, setValues] = useState<Search>(search);
  const set = (name: keyof Search) => (value: string) => setValues((current) => ({ ...current, [name]: value }));
  const submit = (event: Event) => {
    event.preventDefault();
    const next: Search = {};
    for (const [name, value] of Object.entries(values) as Array<[keyof Search, string | undefined]>) {
      const text = value?.trim();
      if (!text || name === 'page' || DEFAULTS[name] === text) continue;
      next[name] = text;
    }
    navigate(searchUrl(next));
  };
  const field = (item: FilterField) => (
    <Field key={item.name} field={item} value={values[item.name] ?? ''} onChange={set(item.name)} />
  );
  const more = FILTER_FIELDS.filter((item) => item.more);
  const moreSet = more.some((item) => search[item.name] !== undefined);
  return (
    <form class="filters" aria-label="Filters" onSubmit={submit} action={PORTAL_PAGES.exposure}>
      {FILTER_FIELDS.filter((item) => !item.more).map(field)}
      <datalist id="classification-types">
        {CLASSIFICATION_TYPES.map((type) => (
          <option key={type} value={type} />
        ))}
      </datalist>
      <div class="field">
        <label for="filter-sort">Sort by</label>
        <Choice id="filter-sort" value={values.sort ?? 'timestamp'} options={SORTS} onChange={set('sort')} />
      </div>
      <div class="field">
        <label for="filter-order">Order</label>
        <Choice id="filter-order" value={values.order ?? 'desc'} options={ORDERS} onChange={set('order')} />
      </div>
      <details class="more" open={moreSet}>
        <summary>More filters: dates, transport, record id</summary>
        <div class="more-fields">{more.map(field)}</div>
      </details>
      <div class="actions">
        <button type="submit">Search</button>
        <Link href={PORTAL_PAGES.exposure} class="button secondary">
          Clear
        </Link>
      </div>
    </form>
  );
}
