import { useEffect, useState } from 'preact/hooks';
import type { CpeSearchPage, CpeSearchQuery } from '../../client/index.js';
import { PORTAL_PAGES } from '../../core/portal/pages.js';
import { api } from '../api.js';
import { count, Pager, pageOf, SelectField, TableWrap, TextField } from '../components/filter-fields.js';
import { Layout } from '../components/layout.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../components/use-api.js';
import { Link, navigate, urlOf, useLocation } from '../router.js';

interface CpeFilters {
  part: string;
  vendor: string;
  product: string;
  version: string;
  isVulnerable: boolean;
  order: string;
}

const PARTS = [
  { value: '', label: 'Any' },
  { value: 'a', label: 'a: application' },
  { value: 'o', label: 'o: operating system' },
  { value: 'h', label: 'h: hardware' },
];
const ORDERS = [
  { value: 'asc', label: 'A to Z' },
  { value: 'desc', label: 'Z to A' },
];
const LIMIT = 25;
/** CVEs listed per CPE name before "show all". */
const CVES_SHOWN = 12;

function filtersOf(query: URLSearchParams): CpeFilters {
  return {
    part: query.get('part') ?? '',
    vendor: query.get('vendor') ?? '',
    product: query.get('product') ?? '',
    version: query.get('version') ?? '',
    isVulnerable: query.get('isVulnerable') === 'true',
    order: query.get('order') ?? 'asc',
  };
}

/** The URL's filters without blanks and defaults. */
function urlQuery(filters: CpeFilters) {
  return {
    part: filters.part.trim(),
    vendor: filters.vendor.trim(),
    product: filters.product.trim(),
    version: filters.version.trim(),
    isVulnerable: filters.isVulnerable ? 'true' : undefined,
    order: filters.order === 'asc' ? undefined : filters.order,
  };
}

/** A WFN attribute of `cpe_struct` as people write it: `2\.4\.49` → `2.4.49`, `*` → any. */
const attribute = (value: string) => (value === '*' ? 'any' : value === '-' ? 'n/a' : value.replace(/\\(.)/g, '$1'));

export function CpePage() {
  const { query } = useLocation();
  const search = query.toString();
  const [filters, setFilters] = useState<CpeFilters>(() => filtersOf(query));
  useEffect(() => setFilters(filtersOf(query)), [search]);

  const asked = filtersOf(query);
  const page = pageOf(query.get('page'));
  // A search runs once the URL holds a filter (a bare /cpe would list every name).
  const wanted = ['part', 'vendor', 'product', 'version', 'order', 'isVulnerable'].some((name) =>
    query.get(name)?.trim(),
  );
  const apiQuery = { ...urlQuery(asked), isVulnerable: asked.isVulnerable || undefined, page, limit: LIMIT };
  // The URL's words go to the server as given: it validates them and names what is wrong.
  const results = useApi(wanted ? JSON.stringify(apiQuery) : undefined, (signal) =>
    api.cpeSearch({ ...apiQuery, order: asked.order } as CpeSearchQuery, { signal }),
  );

  const submit = (event: Event) => {
    event.preventDefault();
    navigate(urlOf(PORTAL_PAGES.cpe, urlQuery(filters)));
  };
  const setText = (name: 'part' | 'vendor' | 'product' | 'version' | 'order') => (value: string) =>
    setFilters((now) => ({ ...now, [name]: value }));
  const pageHref = (to: number) => urlOf(PORTAL_PAGES.cpe, { ...urlQuery(asked), page: to });

  return (
    <Layout title="CPE search">
      <p class="hint">
        Find CPE names by their attributes and the CVEs whose applicability names them. A version ending in{' '}
        <code>*</code> matches every version that starts with it.
      </p>
      <form class="filters" aria-label="CPE names" onSubmit={submit}>
        <SelectField name="part" label="Part" value={filters.part} options={PARTS} onChange={setText('part')} />
        <TextField
          name="vendor"
          label="Vendor"
          placeholder="apache"
          value={filters.vendor}
          onInput={setText('vendor')}
        />
        <TextField
          name="product"
          label="Product"
          placeholder="http_server"
          value={filters.product}
          onInput={setText('product')}
        />
        <TextField
          name="version"
          label="Version"
          placeholder="2.4.*"
          value={filters.version}
          onInput={setText('version')}
        />
        <SelectField name="order" label="Order" value={filters.order} options={ORDERS} onChange={setText('order')} />
        <div class="field">
          <span class="check">
            <input
              id="filter-isVulnerable"
              name="isVulnerable"
              type="checkbox"
              checked={filters.isVulnerable}
              onChange={(event) =>
                setFilters((now) => ({ ...now, isVulnerable: (event.target as HTMLInputElement).checked }))
              }
            />
            <label for="filter-isVulnerable">Only where the CPE is vulnerable</label>
          </span>
        </div>
        <div class="actions">
          <button type="submit">Search</button>
          <button type="button" class="secondary" onClick={() => navigate(PORTAL_PAGES.cpe)}>
            Clear
          </button>
        </div>
      </form>
      <section aria-labelledby="cpe-results" class="result-section">
        <h2 id="cpe-results">Results</h2>
        {!wanted ? <p class="status">Give a part, vendor, product or version to search.</p> : null}
        {results.state === 'loading' ? <Loading what="Searching CPE names" /> : null}
        {results.state === 'error' ? <ErrorMessage message={results.message} /> : null}
        {results.state === 'done' ? <CpeResults page={results.data} pageHref={pageHref} /> : null}
      </section>
    </Layout>
  );
}

function CpeResults({ page, pageHref }: { page: CpeSearchPage; pageHref: (page: number) => string }) {
  const meta = page._meta;
  return (
    <>
      <p class="summary" role="status">
        <strong data-testid="cpe-total">{meta.total_documents.toLocaleString('en')}</strong>{' '}
        {meta.total_documents === 1 ? 'CPE name matches' : 'CPE names match'}
        {page.data.length > 0
          ? `; showing ${meta.first_item.toLocaleString('en')}–${meta.last_item.toLocaleString('en')}`
          : ''}
        {meta.max_pages < meta.total_pages ? ` (the first ${count(meta.max_pages, 'page')} can be shown)` : ''}.
      </p>
      {page.data.length === 0 ? (
        <Empty>No CPE name matches.</Empty>
      ) : (
        <TableWrap label="CPE names and their CVEs">
          <table class="cpe-table">
            <thead>
              <tr>
                <th scope="col">CPE name</th>
                <th scope="col">Vendor</th>
                <th scope="col">Product</th>
                <th scope="col">Version</th>
                <th scope="col">CVEs</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((item) => (
                <tr key={item.cpe}>
                  <td class="mono wrap">{item.cpe}</td>
                  <td>{attribute(item.cpe_struct.vendor)}</td>
                  <td>{attribute(item.cpe_struct.product)}</td>
                  <td>{attribute(item.cpe_struct.version)}</td>
                  <td>
                    <CveList cves={item.cves} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager page={meta.page} pages={meta.max_pages} hrefOf={pageHref} label="CPE result pages" />
    </>
  );
}

function CveList({ cves }: { cves: string[] }) {
  const [all, setAll] = useState(false);
  if (cves.length === 0) return <span class="empty">none</span>;
  const shown = all ? cves : cves.slice(0, CVES_SHOWN);
  return (
    <>
      <ul class="cve-links">
        {shown.map((cve) => (
          <li key={cve}>
            <Link href={urlOf(PORTAL_PAGES.advisory, { cve })}>{cve}</Link>
          </li>
        ))}
      </ul>
      {cves.length > CVES_SHOWN ? (
        <button type="button" class="link-button" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show all ${cves.length.toLocaleString('en')}`}
        </button>
      ) : null}
    </>
  );
}
