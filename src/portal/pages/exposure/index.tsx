import type { TargetIntelFacets, TargetIntelPage, TargetIntelRecord } from '../../../client/index.js';
import { PORTAL_PAGES } from '../../../core/portal/pages.js';
import { api } from '../../api.js';
import { DateChart } from '../../components/date-chart.js';
import { FacetBars } from '../../components/facet-bars.js';
import { Layout } from '../../components/layout.js';
import { Empty, ErrorMessage, Loading } from '../../components/status.js';
import { type ApiState, useApi } from '../../components/use-api.js';
import { WorldMap } from '../../components/world-map.js';
import { countryName, formatCount, formatInstant, plural } from '../../format.js';
import { Link, urlOf, useLocation } from '../../router.js';
import { FACET_CHARTS, facetsQuery, filtersOf, hostUrl, pageQuery, type Search, searchOf, searchUrl } from './query.js';
import { SearchForm } from './search-form.js';

/** The search with one more filter, from page 1: where a facet bar leads. */
function withFilter(search: Search, name: keyof Search, value: string | number): string {
  const { page: _page, ...rest } = search;
  return searchUrl({ ...rest, [name]: String(value) });
}

const countryLabel = (value: string | number) => `${countryName(String(value))} (${value})`;

function Software({ record }: { record: TargetIntelRecord }) {
  const names = record.fingerprints
    .map((print) => [print.vendor, print.product, print.version].filter(Boolean).join(' '))
    .filter(Boolean);
  return <>{[...new Set(names)].join('; ')}</>;
}

function Cves({ cves }: { cves: string[] | null }) {
  if (!cves?.length) return <span class="muted">none</span>;
  const shown = cves.slice(0, 3);
  return (
    <ul class="inline">
      {shown.map((cve) => (
        <li key={cve}>
          <Link href={urlOf(PORTAL_PAGES.exposure, { cve })}>{cve}</Link>
        </li>
      ))}
      {cves.length > shown.length ? <li>+{cves.length - shown.length} more</li> : null}
    </ul>
  );
}

function ResultsTable({ records }: { records: TargetIntelRecord[] }) {
  return (
    // Scrolls sideways on a narrow screen; focusable so the keyboard can scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section class="table-wrap" aria-labelledby="results-caption" tabIndex={0}>
      <table class="records">
        <caption id="results-caption">Matching services; open one for every field and the CVE evidence</caption>
        <thead>
          <tr>
            <th scope="col">Service</th>
            <th scope="col">Hostname</th>
            <th scope="col">Software</th>
            <th scope="col">CVEs</th>
            <th scope="col">Network</th>
            <th scope="col">Last seen (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={`${record.ip} ${record.port} ${record.protocol}`}>
              <td class="mono nowrap">
                <Link href={hostUrl(record)}>
                  {record.ip.includes(':') ? `[${record.ip}]` : record.ip}:{record.port}/{record.protocol}
                </Link>
              </td>
              <td class="wrap">{record.hostname}</td>
              <td class="wrap">
                <Software record={record} />
              </td>
              <td>
                <Cves cves={record.cve} />
              </td>
              <td class="nowrap">
                {record.country_code ?? ''}
                {record.country_code && record.asn ? ' · ' : ''}
                {record.asn ?? ''}
              </td>
              <td class="nowrap">{formatInstant(record.timestamp).replace(' UTC', '')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Pager({ search, meta }: { search: Search; meta: TargetIntelPage['_meta'] }) {
  const last = Math.max(1, meta.max_pages);
  const page = meta.page;
  const to = (number: number) => searchUrl({ ...search, page: number === 1 ? undefined : String(number) });
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? (
        <Link href={to(page - 1)}>← Previous</Link>
      ) : (
        <span class="muted" aria-hidden="true">
          ← Previous
        </span>
      )}
      <span>
        Page {formatCount(page)} of {formatCount(last)}
        {meta.total_pages > meta.max_pages ? ' (narrow the filters to reach the rest)' : ''}
      </span>
      {page < last ? (
        <Link href={to(page + 1)}>Next →</Link>
      ) : (
        <span class="muted" aria-hidden="true">
          Next →
        </span>
      )}
    </nav>
  );
}

function Results({ search, results }: { search: Search; results: ApiState<TargetIntelPage> }) {
  if (results.state === 'loading' || results.state === 'idle') return <Loading what="Searching" />;
  if (results.state === 'error') return <ErrorMessage message={results.message} />;
  const { _meta: meta, data } = results.data;
  if (meta.total_documents === 0) return <Empty>No record matches these filters.</Empty>;
  return (
    <>
      <p class="summary" role="status">
        <strong data-total={meta.total_documents}>{plural(meta.total_documents, 'record')}</strong> match
        {data.length > 0
          ? `; showing ${formatCount(meta.first_item)}–${formatCount(meta.last_item)}`
          : '; this page is past the end'}
      </p>
      {data.length > 0 ? <ResultsTable records={data} /> : null}
      <Pager search={search} meta={meta} />
    </>
  );
}

function Facets({ search, facets }: { search: Search; facets: ApiState<TargetIntelFacets> }) {
  if (facets.state === 'loading' || facets.state === 'idle') return <Loading what="Counting" />;
  if (facets.state === 'error') return null;
  return (
    <>
      {FACET_CHARTS.map((chart) => (
        <FacetBars
          key={chart.field}
          id={chart.field}
          title={chart.title}
          values={(facets.data.data[chart.field]?.values ?? []).slice(0, 10)}
          hrefOf={(value) => withFilter(search, chart.filter, value)}
          labelOf={chart.field === 'country_code' ? countryLabel : String}
          active={search[chart.filter]}
        />
      ))}
    </>
  );
}

function Overview({ facets }: { facets: ApiState<TargetIntelFacets> }) {
  if (facets.state !== 'done' || facets.data._meta.total_documents === 0) return null;
  const { data } = facets.data;
  return (
    <div class="overview">
      <section aria-labelledby="map-heading">
        <h2 id="map-heading">Where</h2>
        <WorldMap counts={data.country_code?.values ?? []} />
      </section>
      <section aria-labelledby="dates-heading">
        <h2 id="dates-heading">First seen</h2>
        <DateChart counts={data.date_added?.values ?? []} />
      </section>
    </div>
  );
}

/**
 * Exposure search: the filters in the URL, one page of matching services and, from one facets
 * call, the counts by country (bars and map), port, product, CVE, ASN, classification and day.
 */
export function ExposurePage() {
  const { query } = useLocation();
  const search = searchOf(query);
  const key = searchUrl(search);
  const filterKey = searchUrl(filtersOf(search));
  const results = useApi(key, (signal) => api.targetIntel(pageQuery(search), { signal }));
  const facets = useApi(filterKey, (signal) => api.targetIntelFacets(facetsQuery(search), { signal }));
  const facetError =
    facets.state === 'error' && !(results.state === 'error' && results.message === facets.message)
      ? facets.message
      : undefined;
  return (
    <Layout title="Exposure search">
      <SearchForm key={key} search={search} />
      {facetError ? <ErrorMessage message={`Counts: ${facetError}`} /> : null}
      <Overview facets={facets} />
      <div class="results">
        <section aria-labelledby="results-heading" class="records-section">
          <h2 id="results-heading">Services</h2>
          <Results search={search} results={results} />
        </section>
        <aside class="facets" aria-labelledby="facets-heading">
          <h2 id="facets-heading">Counts</h2>
          <p class="hint">Select a value to add it to the filters.</p>
          <Facets search={search} facets={facets} />
        </aside>
      </div>
    </Layout>
  );
}
