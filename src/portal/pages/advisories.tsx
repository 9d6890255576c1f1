import { useEffect, useState } from 'preact/hooks';
import '../advisories.css';
import type { AdvisoryQuery, AdvisoryRecord } from '../../client/index.js';
import { PORTAL_PAGES } from '../../core/portal/pages.js';
import { cvssOf, formatDate, summaryOf, titleOf, updatedOf } from '../advisory-facts.js';
import { api } from '../api.js';
import { count, Pager, pageOf, SelectField, TextField } from '../components/filter-fields.js';
import { Layout } from '../components/layout.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../components/use-api.js';
import { Link, navigate, urlOf, useLocation } from '../router.js';
import { SeverityBadge } from './advisory.js';

/** Every filter of `/v4/advisory` but the feed (`name`), which is a select. */
const TEXT_FILTERS = [
  { name: 'cve_id', label: 'CVE or advisory id', placeholder: 'CVE-2021-41773' },
  { name: 'vendor', label: 'Vendor', placeholder: 'apache' },
  { name: 'product', label: 'Product', placeholder: 'http_server' },
  { name: 'version', label: 'Affected version', placeholder: '2.4.49' },
  { name: 'cpe', label: 'CPE', placeholder: 'cpe:2.3:a:apache:http_server:2.4.49' },
  { name: 'package_name', label: 'Package name', placeholder: 'requests' },
  { name: 'purl', label: 'Package URL (purl)', placeholder: 'pkg:pypi/requests@2.19.0' },
  { name: 'platform', label: 'Platform', placeholder: 'linux' },
  { name: 'reference_url', label: 'Reference URL (exact)', placeholder: 'https://…' },
  { name: 'reference_tag', label: 'Reference tag', placeholder: 'vendor-advisory' },
  { name: 'description_lang', label: 'Description language', placeholder: 'en' },
  { name: 'updatedAfter', label: 'Updated after', placeholder: '2024-05-01 or now-30d' },
  { name: 'updatedBefore', label: 'Updated before', placeholder: '2024-06-01 or now' },
] as const;
/** Shown open; the others sit under "More filters" unless one of them is set. */
const FIRST_FILTERS = 4;

type FilterName = 'name' | (typeof TEXT_FILTERS)[number]['name'];
const FILTER_NAMES: FilterName[] = ['name', ...TEXT_FILTERS.map((filter) => filter.name)];
type Filters = Record<FilterName, string>;

const LIMITS = ['10', '25', '50', '100'];

function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTER_NAMES.map((name) => [name, query.get(name) ?? ''])) as Filters;
}

/** `/advisory` for a record of a list: of its feed when the list is of one feed. */
export function advisoryHref(record: AdvisoryRecord, feed: string | undefined): string {
  const id = record.cveMetadata.cveId;
  return feed ? urlOf(PORTAL_PAGES.advisory, { feed, id }) : urlOf(PORTAL_PAGES.advisory, { cve: id });
}

export function AdvisoriesPage() {
  const { query } = useLocation();
  const search = query.toString();
  const [filters, setFilters] = useState<Filters>(() => filtersOf(query));
  const limitParam = query.get('limit') ?? '';
  const [limit, setLimit] = useState(LIMITS.includes(limitParam) ? limitParam : '10');
  useEffect(() => {
    setFilters(filtersOf(query));
    setLimit(LIMITS.includes(limitParam) ? limitParam : '10');
  }, [search]);

  const feeds = useApi('feeds', (signal) => api.advisoryFeeds({ signal }));
  const page = pageOf(query.get('page'));
  const asked = filtersOf(query);
  const apiQuery: AdvisoryQuery = { page, limit: Number(LIMITS.includes(limitParam) ? limitParam : '10') };
  for (const name of FILTER_NAMES) if (asked[name].trim()) apiQuery[name] = asked[name].trim();
  const results = useApi(JSON.stringify(apiQuery), (signal) => api.advisories(apiQuery, { signal }));

  const submit = (event: Event) => {
    event.preventDefault();
    navigate(urlOf(PORTAL_PAGES.advisories, { ...trimmed(filters), limit: limit === '10' ? undefined : limit }));
  };
  const clear = () => navigate(PORTAL_PAGES.advisories);
  const set = (name: FilterName) => (value: string) => setFilters((now) => ({ ...now, [name]: value }));
  const moreOpen = TEXT_FILTERS.slice(FIRST_FILTERS).some((filter) => asked[filter.name] !== '');
  const feedOptions = [
    { value: '', label: 'All feeds you may read' },
    ...(feeds.state === 'done' ? feeds.data.data.map((feed) => ({ value: feed.name, label: feed.name })) : []),
  ];
  const pageHref = (to: number) => urlOf(PORTAL_PAGES.advisories, { ...asked, limit: limitParam, page: to });

  return (
    <Layout title="Advisories">
      <form class="filters" aria-label="Advisories" onSubmit={submit}>
        <SelectField name="name" label="Feed" value={filters.name} options={feedOptions} onChange={set('name')} />
        {TEXT_FILTERS.slice(0, FIRST_FILTERS).map((filter) => (
          <TextField key={filter.name} {...filter} value={filters[filter.name]} onInput={set(filter.name)} />
        ))}
        <details class="more-filters" open={moreOpen}>
          <summary>More filters</summary>
          <div class="filter-grid">
            {TEXT_FILTERS.slice(FIRST_FILTERS).map((filter) => (
              <TextField key={filter.name} {...filter} value={filters[filter.name]} onInput={set(filter.name)} />
            ))}
            <SelectField
              name="limit"
              label="Per page"
              value={limit}
              options={LIMITS.map((value) => ({ value, label: value }))}
              onChange={setLimit}
            />
          </div>
        </details>
        <div class="actions">
          <button type="submit">Search</button>
          <button type="button" class="secondary" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
      {feeds.state === 'error' ? <ErrorMessage message={`Feeds could not be listed: ${feeds.message}`} /> : null}
      <section aria-labelledby="advisory-results" class="result-section">
        <h2 id="advisory-results">Results</h2>
        {results.state === 'loading' || results.state === 'idle' ? <Loading what="Searching advisories" /> : null}
        {results.state === 'error' ? <ErrorMessage message={results.message} /> : null}
        {results.state === 'done' ? (
          <AdvisoryList page={results.data} feed={asked.name.trim() || undefined} pageHref={pageHref} />
        ) : null}
      </section>
    </Layout>
  );
}

function trimmed(filters: Filters): Partial<Filters> {
  return Object.fromEntries(Object.entries(filters).map(([name, value]) => [name, value.trim()]));
}

function AdvisoryList({
  page,
  feed,
  pageHref,
}: {
  page: Awaited<ReturnType<typeof api.advisories>>;
  feed: string | undefined;
  pageHref: (page: number) => string;
}) {
  const meta = page._meta;
  const first = (meta.page - 1) * meta.limit + 1;
  return (
    <>
      <p class="summary" role="status">
        <strong data-testid="advisory-total">{meta.filtered.toLocaleString('en')}</strong>{' '}
        {meta.filtered === 1 ? 'advisory matches' : 'advisories match'} (of {count(meta.total, 'record')} in{' '}
        {feed ? `feed ${feed}` : 'the feeds you may read'})
        {page.data.length > 0
          ? `; showing ${first.toLocaleString('en')}–${(first + page.data.length - 1).toLocaleString('en')}`
          : ''}
        .
      </p>
      {page.data.length === 0 ? (
        <Empty>No advisory matches these filters.</Empty>
      ) : (
        <ol class="advisory-list" start={first}>
          {page.data.map((record, index) => (
            <AdvisoryItem key={`${record.cveMetadata.cveId}-${index}`} record={record} feed={feed} />
          ))}
        </ol>
      )}
      <Pager page={meta.page} pages={meta.pages} hrefOf={pageHref} label="Advisory pages" />
    </>
  );
}

function AdvisoryItem({ record, feed }: { record: AdvisoryRecord; feed: string | undefined }) {
  const title = titleOf(record);
  const summary = summaryOf(record);
  const best = cvssOf(record)[0];
  const updated = updatedOf(record);
  const source = record.containers.cna.providerMetadata?.shortName ?? record.cveMetadata.assignerShortName;
  return (
    <li class="advisory-item">
      <div class="advisory-head">
        <Link href={advisoryHref(record, feed)} class="advisory-id">
          {record.cveMetadata.cveId}
        </Link>
        {best ? <SeverityBadge score={best} /> : null}
        {record.cveMetadata.state === 'REJECTED' ? <span class="badge badge-muted">Rejected</span> : null}
      </div>
      {title ? <p class="advisory-title">{title}</p> : null}
      {summary && summary !== title ? <p class="advisory-summary">{summary}</p> : null}
      <p class="advisory-meta">
        {feed ? `Feed ${feed}` : source ? `From ${source}` : null}
        {updated ? `${feed || source ? ' · ' : ''}updated ${formatDate(updated)}` : null}
      </p>
    </li>
  );
}
