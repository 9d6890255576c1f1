import type { TargetIntelRecord } from '../../client/index.js';
import { PORTAL_PAGES } from '../../core/portal/pages.js';
import { api } from '../api.js';
import { ExternalLink, safeHttpUrl } from '../components/external-link.js';
import { Layout } from '../components/layout.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../components/use-api.js';
import { countryName, formatInstant } from '../format.js';
import { Link, urlOf, useLocation } from '../router.js';

type Evidence = NonNullable<TargetIntelRecord['cve_evidence']>[number];

/** The record's fields in reading order; any other field the server adds follows them. */
const FIELD_LABELS: Array<[keyof TargetIntelRecord, string]> = [
  ['ip', 'IP address'],
  ['port', 'Port'],
  ['protocol', 'Protocol'],
  ['hostname', 'Hostname'],
  ['timestamp', 'Last seen'],
  ['date_added', 'First seen'],
  ['country', 'Country'],
  ['country_code', 'Country code'],
  ['asn', 'ASN'],
  ['as_name', 'AS name'],
  ['as_domain', 'AS domain'],
  ['classifications', 'Classifications'],
  ['contains_cve', 'Has a CVE'],
  ['cve', 'CVEs'],
  ['cpe', 'CPEs'],
  ['vendor', 'Vendors'],
  ['product', 'Products'],
  ['version', 'Versions'],
];
const SHOWN_APART = new Set(['fingerprints', 'cve_evidence']);

const KIND_TEXT: Record<Evidence['kind'], string> = {
  exact_version: 'the exact version is listed',
  version_range: 'the version is inside the range',
  all_versions: 'every version is affected',
  version_unknown: 'the record has no version to compare',
  uncomparable: 'the versions cannot be compared',
  version_family: 'the range covers only part of the version family',
  scanner_reported: 'the scanner reported it',
};

/** A value as text; only an http(s) URL becomes a link. */
function Text({ value }: { value: unknown }) {
  if (value === undefined || value === null || value === '') return <span class="muted">none</span>;
  if (typeof value === 'boolean') return <>{value ? 'yes' : 'no'}</>;
  if (Array.isArray(value)) {
    return (
      <ul class="plain">
        {value.map((item, index) => (
          <li key={index}>
            <Text value={item} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'string') {
    return /^https?:\/\//i.test(value) && safeHttpUrl(value) ? <ExternalLink url={value} /> : value;
  }
  if (typeof value === 'number') return <>{String(value)}</>;
  return <span class="mono">{JSON.stringify(value)}</span>;
}

function FieldValue({ name, record }: { name: string; record: TargetIntelRecord }) {
  const value = (record as unknown as Record<string, unknown>)[name];
  if (name === 'timestamp' || name === 'date_added') return <>{formatInstant(value as string)}</>;
  if (name === 'country_code' && typeof value === 'string') {
    return (
      <>
        {value} ({countryName(value)})
      </>
    );
  }
  if (name === 'cve' && Array.isArray(value)) {
    return (
      <ul class="plain">
        {(value as string[]).map((cve) => (
          <li key={cve}>
            <CveLinks cve={cve} />
          </li>
        ))}
      </ul>
    );
  }
  if (name === 'cpe' || name === 'ip') return <span class="mono">{(value as string[] | string).toString()}</span>;
  return <Text value={value} />;
}

function CveLinks({ cve }: { cve: string }) {
  return (
    <>
      <Link href={urlOf(PORTAL_PAGES.advisory, { cve })}>{cve}</Link>{' '}
      <Link href={urlOf(PORTAL_PAGES.exposure, { cve })} class="small" aria-label={`Services exposed to ${cve}`}>
        (services)
      </Link>
    </>
  );
}

function Fingerprint({ print, index }: { print: Record<string, string | undefined>; index: number }) {
  const entries = Object.entries(print).filter(([, value]) => value !== undefined);
  return (
    <section aria-labelledby={`fingerprint-${index}`} class="panel">
      <h3 id={`fingerprint-${index}`}>Fingerprint {index + 1}</h3>
      <dl class="fields">
        {entries.map(([name, value]) => (
          <div key={name} class="field-row">
            <dt>{name}</dt>
            <dd>
              {name === 'banner' || (value ?? '').includes('\n') ? (
                <pre class="text">{value}</pre>
              ) : name === 'cpe' ? (
                <span class="mono">{value}</span>
              ) : (
                <Text value={value} />
              )}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function EvidenceTable({ evidence }: { evidence: Evidence[] }) {
  if (evidence.length === 0) return <Empty>This service lists no CVE.</Empty>;
  return (
    <div class="table-wrap">
      <table class="evidence">
        <caption>Why each CVE is (or may be) on this service</caption>
        <thead>
          <tr>
            <th scope="col">CVE</th>
            <th scope="col">Confirmed</th>
            <th scope="col">Source</th>
            <th scope="col">How it matched</th>
            <th scope="col">Fingerprint CPE</th>
            <th scope="col">Criterion</th>
            <th scope="col">Range</th>
            <th scope="col">Confidence</th>
          </tr>
        </thead>
        <tbody>
          {evidence.map((item, index) => (
            <tr key={index}>
              <td class="nowrap">
                <CveLinks cve={item.cve} />
              </td>
              <td>{item.confirmed ? 'yes' : 'no'}</td>
              <td>{item.source}</td>
              <td>
                {KIND_TEXT[item.kind] ?? item.kind}
                {item.configuration === 'conditional' ? '; needs more than the record shows (AND configuration)' : ''}
                {item.vulnerable === false ? '; the CPE is a platform, not the vulnerable element' : ''}
                {item.alias ? `; matched through the renamed name ${item.alias}` : ''}
              </td>
              <td class="mono wrap">{item.cpe ?? ''}</td>
              <td class="mono wrap">{item.criterion ?? ''}</td>
              <td class="nowrap">{item.range ?? ''}</td>
              <td>{item.confidence}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function HostRecord({ record }: { record: TargetIntelRecord }) {
  const names = Object.keys(record).filter(
    (name) => !SHOWN_APART.has(name) && !FIELD_LABELS.some(([known]) => known === name),
  );
  return (
    <article class="host-record">
      <h2>Fields</h2>
      <dl class="fields">
        {FIELD_LABELS.filter(([name]) => name in record).map(([name, label]) => (
          <div key={name} class="field-row">
            <dt>{label}</dt>
            <dd>
              <FieldValue name={name} record={record} />
            </dd>
          </div>
        ))}
        {names.map((name) => (
          <div key={name} class="field-row">
            <dt>{name}</dt>
            <dd>
              <FieldValue name={name} record={record} />
            </dd>
          </div>
        ))}
      </dl>
      <h2>Fingerprints</h2>
      {record.fingerprints.length === 0 ? <Empty>No fingerprint.</Empty> : null}
      {record.fingerprints.map((print, index) => (
        <Fingerprint key={index} index={index} print={print as Record<string, string | undefined>} />
      ))}
      <h2>CVE evidence</h2>
      <p class="hint">
        Each row is one reason for a CVE: a criterion of an advisory (NVD, the CNA or an ADP) that the fingerprint's CPE
        matched, with the version bounds that decided, or the scanner's own report. Only confirmed rows count for the
        CVE filters; the others are possible matches to check.
      </p>
      <EvidenceTable evidence={record.cve_evidence ?? []} />
      <details>
        <summary>The record as the API returns it (JSON)</summary>
        <pre class="text">{JSON.stringify(record, null, 2)}</pre>
      </details>
    </article>
  );
}

/** One service's record (`/host?ip=…&port=…&protocol=…`): every field, and why each CVE is there. */
export function HostPage() {
  const { query } = useLocation();
  const ip = query.get('ip')?.trim() ?? '';
  const port = query.get('port')?.trim() ?? '';
  const protocol = query.get('protocol')?.trim() || 'tcp';
  const ready = ip !== '' && port !== '';
  const key = ready ? urlOf(PORTAL_PAGES.host, { ip, port, protocol }) : undefined;
  const answer = useApi(key, (signal) =>
    api.targetIntel(
      { cidr: ip, port: port as unknown as number, protocol: protocol as 'tcp', explain: true, limit: 10 },
      { signal },
    ),
  );
  const title = ready ? `${ip.includes(':') ? `[${ip}]` : ip}:${port}/${protocol}` : 'Host record';
  return (
    <Layout title={title}>
      <p>
        <Link href={urlOf(PORTAL_PAGES.exposure, { cidr: ip || undefined })}>Other services of this address</Link>
      </p>
      {!ready ? (
        <ErrorMessage message="This page needs an address and a port: /host?ip=…&port=…&protocol=tcp" />
      ) : answer.state === 'error' ? (
        <ErrorMessage message={answer.message} />
      ) : answer.state !== 'done' ? (
        <Loading what="Loading the record" />
      ) : answer.data.data.length === 0 ? (
        <Empty>No record of this service: it may have been removed since.</Empty>
      ) : (
        answer.data.data.map((record, index) => <HostRecord key={index} record={record} />)
      )}
    </Layout>
  );
}
