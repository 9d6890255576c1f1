import { Fragment } from 'preact';
import type { AdvisoryRecord } from '../../client/index.js';
import { PORTAL_PAGES } from '../../core/portal/pages.js';
import {
  affectedOf,
  cnaOf,
  type CvssScore,
  cpeCriteriaOf,
  cvssOf,
  datesOf,
  descriptionsOf,
  formatDate,
  isCveId,
  kevOf,
  referencesOf,
  textsOf,
  titleOf,
  weaknessesOf,
} from '../advisory-facts.js';
import { api } from '../api.js';
import { ExternalLink } from '../components/external-link.js';
import { count, TableWrap } from '../components/filter-fields.js';
import { Layout } from '../components/layout.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../components/use-api.js';
import { Link, urlOf, useLocation } from '../router.js';

/** The records of one feed for the id: the feed named in the URL, or every feed the token may read. */
interface FeedRecords {
  feed: string;
  records: AdvisoryRecord[];
  error?: string;
}

async function recordsOf(id: string, feed: string | undefined, signal: AbortSignal): Promise<FeedRecords[]> {
  if (feed) {
    const page = await api.advisories({ name: feed, cve_id: id, limit: 100 }, { signal });
    return [{ feed, records: page.data }];
  }
  const feeds = await api.advisoryFeeds({ signal });
  return Promise.all(
    feeds.data.map(async ({ name }) => {
      try {
        const page = await api.advisories({ name, cve_id: id, limit: 100 }, { signal });
        return { feed: name, records: page.data };
      } catch (error) {
        if (signal.aborted) throw error;
        return { feed: name, records: [], error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

export function AdvisoryPage() {
  const { query } = useLocation();
  const id = (query.get('id') ?? query.get('cve') ?? '').trim();
  const feed = query.get('feed')?.trim() || undefined;
  const found = useApi(id ? JSON.stringify([id, feed]) : undefined, (signal) => recordsOf(id, feed, signal));
  const cve = isCveId(id) ? id.toUpperCase() : undefined;
  const hosts = useApi(cve, (signal) => api.targetIntel({ cve, limit: 1 }, { signal }));

  if (!id) {
    return (
      <Layout title="Advisory">
        <p>
          No advisory named. <Link href={PORTAL_PAGES.advisories}>Search advisories</Link> to pick one.
        </p>
      </Layout>
    );
  }

  return (
    <Layout title={id}>
      <p class="crumbs">
        <Link href={urlOf(PORTAL_PAGES.advisories, { cve_id: id, name: feed })}>← Advisories with this id</Link>
        {feed ? (
          <>
            {' · '}
            <Link href={urlOf(PORTAL_PAGES.advisory, { cve: id })}>Every feed's record of {id}</Link>
          </>
        ) : null}
      </p>
      {cve ? (
        <p class="hosts-link">
          <Link href={urlOf(PORTAL_PAGES.exposure, { cve })}>
            {hosts.state === 'done'
              ? `${count(hosts.data._meta.total_documents, 'host record')} with ${cve}`
              : `Hosts with ${cve}`}
          </Link>
          {hosts.state === 'loading' ? <span class="status"> (counting…)</span> : null}
        </p>
      ) : null}
      {found.state === 'loading' || found.state === 'idle' ? <Loading what="Loading the advisory" /> : null}
      {found.state === 'error' ? <ErrorMessage message={found.message} /> : null}
      {found.state === 'done' ? <FeedSections found={found.data} id={id} feed={feed} /> : null}
    </Layout>
  );
}

function FeedSections({ found, id, feed }: { found: FeedRecords[]; id: string; feed: string | undefined }) {
  const withRecords = found.filter((entry) => entry.records.length > 0);
  const failed = found.filter((entry) => entry.error);
  return (
    <>
      {failed.map((entry) => (
        <ErrorMessage key={entry.feed} message={`Feed ${entry.feed}: ${entry.error}`} />
      ))}
      {withRecords.length === 0 ? (
        <Empty>{feed ? `Feed ${feed} has no advisory ${id}.` : `No feed you may read has an advisory ${id}.`}</Empty>
      ) : null}
      {withRecords.length > 1 ? (
        <nav class="feed-jump" aria-label="Feeds with this advisory">
          From {withRecords.length} feeds:{' '}
          {withRecords.map((entry, index) => (
            <span key={entry.feed}>
              {index > 0 ? ', ' : ''}
              <a href={`#feed-${entry.feed}`}>{entry.feed}</a>
            </span>
          ))}
        </nav>
      ) : null}
      {withRecords.map((entry) =>
        entry.records.map((record, index) => (
          <AdvisoryView
            key={`${entry.feed}-${index}`}
            record={record}
            feed={entry.feed}
            anchor={index === 0 ? `feed-${entry.feed}` : undefined}
          />
        )),
      )}
    </>
  );
}

const SEVERITY_CLASS: Record<string, string> = {
  CRITICAL: 'sev-critical',
  HIGH: 'sev-high',
  MEDIUM: 'sev-medium',
  MODERATE: 'sev-medium',
  LOW: 'sev-low',
  NONE: 'sev-none',
};

/** A CVSS score and severity as a badge (the words carry the meaning; the colour only repeats it). */
export function SeverityBadge({ score, severityOnly = false }: { score: CvssScore; severityOnly?: boolean }) {
  const severity = score.severity ?? '';
  return (
    <span class={`badge ${SEVERITY_CLASS[severity] ?? 'badge-muted'}`}>
      {severityOnly
        ? severity
        : `CVSS ${score.version} ${score.score !== undefined ? score.score.toFixed(1) : '–'}${severity ? ` ${severity}` : ''}`}
    </span>
  );
}

function AdvisoryView({ record, feed, anchor }: { record: AdvisoryRecord; feed: string; anchor: string | undefined }) {
  const meta = record.cveMetadata;
  const cna = cnaOf(record);
  const title = titleOf(record);
  const descriptions = descriptionsOf(record);
  const scores = cvssOf(record);
  const kev = kevOf(record);
  const affected = affectedOf(record);
  const criteria = cpeCriteriaOf(record);
  const references = referencesOf(record);
  const weaknesses = weaknessesOf(record);
  const dates = datesOf(record);
  const solutions = textsOf(cna.solutions);
  const workarounds = textsOf(cna.workarounds);
  const rejected = textsOf(cna.rejectedReasons);
  const headingId = `${anchor ?? `record-${feed}-${meta.cveId}`}-title`;
  return (
    <article class="advisory" id={anchor} aria-labelledby={headingId}>
      <h2 id={headingId}>
        {meta.cveId} <span class="from-feed">in feed {feed}</span>
      </h2>
      {title ? <p class="advisory-title">{title}</p> : null}
      {meta.state === 'REJECTED' ? (
        <div class="notice">
          <p>This record is rejected.</p>
          {rejected.map((reason, index) => (
            <p key={index} class="prose" lang={reason.lang}>
              {reason.value}
            </p>
          ))}
        </div>
      ) : null}

      <dl class="fields advisory-facts">
        <dt>Feed</dt>
        <dd>
          <Link href={urlOf(PORTAL_PAGES.advisories, { name: feed })}>{feed}</Link>
        </dd>
        {meta.assignerShortName ? (
          <>
            <dt>Assigner</dt>
            <dd>{meta.assignerShortName}</dd>
          </>
        ) : null}
        {cna.providerMetadata?.shortName && cna.providerMetadata.shortName !== meta.assignerShortName ? (
          <>
            <dt>Provider</dt>
            <dd>{cna.providerMetadata.shortName}</dd>
          </>
        ) : null}
        <dt>State</dt>
        <dd>{meta.state}</dd>
        {dates.map(([label, value]) => (
          <Fragment key={label}>
            <dt>{label}</dt>
            <dd>
              <time dateTime={value}>{formatDate(value)}</time>
            </dd>
          </Fragment>
        ))}
      </dl>

      <section aria-label="Description">
        <h3>Description</h3>
        {descriptions.length === 0 ? <Empty>The record has no description.</Empty> : null}
        {descriptions.map((description, index) => (
          <p key={index} class="prose" lang={description.lang}>
            {descriptions.length > 1 && description.lang ? <span class="lang">[{description.lang}] </span> : null}
            {description.value}
          </p>
        ))}
      </section>

      {scores.length > 0 ? (
        <section aria-label="CVSS">
          <h3>CVSS</h3>
          <TableWrap label={`CVSS scores of ${meta.cveId} in ${feed}`}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col" class="number">
                    Score
                  </th>
                  <th scope="col">Severity</th>
                  <th scope="col">Vector</th>
                  <th scope="col">Source</th>
                </tr>
              </thead>
              <tbody>
                {scores.map((score, index) => (
                  <tr key={index}>
                    <td>{score.version}</td>
                    <td class="number">{score.score !== undefined ? score.score.toFixed(1) : '–'}</td>
                    <td>{score.severity ? <SeverityBadge score={score} severityOnly /> : '–'}</td>
                    <td class="mono wrap">{score.vector ?? '–'}</td>
                    <td>{score.source ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </section>
      ) : null}

      {kev ? (
        <section aria-label="Known exploited" class="kev">
          <h3>Known exploited (KEV)</h3>
          <dl class="fields">
            {kev.name ? (
              <>
                <dt>Name</dt>
                <dd>{kev.name}</dd>
              </>
            ) : null}
            {kev.dateAdded ? (
              <>
                <dt>Date added</dt>
                <dd>{formatDate(kev.dateAdded)}</dd>
              </>
            ) : null}
            {kev.dueDate ? (
              <>
                <dt>Due date</dt>
                <dd>{formatDate(kev.dueDate)}</dd>
              </>
            ) : null}
            {kev.requiredAction ? (
              <>
                <dt>Required action</dt>
                <dd>{kev.requiredAction}</dd>
              </>
            ) : null}
            {kev.ransomware ? (
              <>
                <dt>Known ransomware use</dt>
                <dd>{kev.ransomware}</dd>
              </>
            ) : null}
            {kev.notes ? (
              <>
                <dt>Notes</dt>
                <dd class="prose">{kev.notes}</dd>
              </>
            ) : null}
            {kev.reference ? (
              <>
                <dt>Reference</dt>
                <dd>
                  <ExternalLink url={kev.reference} />
                </dd>
              </>
            ) : null}
            <dt>Source</dt>
            <dd>{kev.source}</dd>
          </dl>
        </section>
      ) : null}

      {weaknesses.length > 0 ? (
        <section aria-label="Weaknesses">
          <h3>Weaknesses</h3>
          <ul class="tags">
            {weaknesses.map((weakness) => (
              <li key={weakness}>{weakness}</li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-label="Affected products">
        <h3>Affected products and versions</h3>
        {affected.length === 0 && criteria.length === 0 ? <Empty>The record names no affected product.</Empty> : null}
        {affected.length > 0 ? (
          <TableWrap label={`Affected products of ${meta.cveId} in ${feed}`}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Vendor</th>
                  <th scope="col">Product or package</th>
                  <th scope="col">Affected</th>
                  <th scope="col">Not affected</th>
                  <th scope="col">Other versions are</th>
                </tr>
              </thead>
              <tbody>
                {affected.map((entry, index) => (
                  <tr key={index}>
                    <td>{entry.vendor ?? ''}</td>
                    <td>
                      {entry.product ?? entry.packageName ?? ''}
                      {entry.packageName && entry.product ? <div class="sub">package {entry.packageName}</div> : null}
                      {entry.packageUrl ? <div class="sub mono wrap">{entry.packageUrl}</div> : null}
                      {entry.platforms.length > 0 ? <div class="sub">on {entry.platforms.join(', ')}</div> : null}
                      {entry.cpes.map((cpe) => (
                        <div key={cpe} class="sub mono wrap">
                          {cpe}
                        </div>
                      ))}
                    </td>
                    <td>
                      <VersionList versions={[...entry.affected, ...entry.other]} />
                    </td>
                    <td>
                      <VersionList versions={entry.unaffected} />
                    </td>
                    <td>{entry.defaultStatus ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
        {criteria.length > 0 ? (
          <>
            <h4>CPE applicability</h4>
            <ul class="cpe-criteria">
              {criteria.map((criterion, index) => (
                <li key={index}>
                  <span class="mono wrap">{criterion.criteria}</span>
                  {criterion.range ? <span> {criterion.range}</span> : null}
                  <span class="sub"> {criterion.vulnerable ? '(vulnerable)' : '(platform, not vulnerable)'}</span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>

      {solutions.length > 0 || workarounds.length > 0 ? (
        <section aria-label="Remedies">
          <h3>Solutions and workarounds</h3>
          {[...solutions, ...workarounds].map((remedy, index) => (
            <p key={index} class="prose" lang={remedy.lang}>
              {remedy.value}
            </p>
          ))}
        </section>
      ) : null}

      <section aria-label="References">
        <h3>References</h3>
        {references.length === 0 ? (
          <Empty>The record has no references.</Empty>
        ) : (
          <ul class="references">
            {references.map((reference) => (
              <li key={reference.url}>
                <ExternalLink url={reference.url} />
                {reference.name && reference.name !== reference.url ? <span class="sub"> {reference.name}</span> : null}
                {reference.tags.length > 0 ? <span class="sub"> ({reference.tags.join(', ')})</span> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}

function VersionList({ versions }: { versions: string[] }) {
  if (versions.length === 0) return null;
  return (
    <ul class="versions">
      {versions.map((version, index) => (
        <li key={index}>{version}</li>
      ))}
    </ul>
  );
}
