import { useState } from 'preact/hooks';
import { PORTAL_PAGES } from '../../core/portal/pages.js';
import { formatDate } from '../advisory-facts.js';
import { api, messageOf } from '../api.js';
import { safeHttpUrl } from '../components/external-link.js';
import { TableWrap } from '../components/filter-fields.js';
import { Layout } from '../components/layout.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../components/use-api.js';
import { Link, urlOf } from '../router.js';

/** A downloadable archive: its signed URL, as the API gives it, and what identifies it. */
interface Archive {
  file: string | undefined;
  url: string;
  sha256: string;
  writtenAt: string | undefined;
  expires: string;
  size: number | undefined;
}

interface FeedRow {
  name: string;
  description: string;
  records: number | undefined;
  recordsError?: string;
  backup: Archive | undefined;
  backupError?: string;
}

interface IndexRow {
  name: string;
  description: string;
  archives: Archive[];
  error?: string;
}

/**
 * The archive's size, from a HEAD of its signed URL (`Content-Length`); undefined when the URL
 * lives elsewhere and does not say. The request carries no cookie and no referrer.
 */
async function sizeOf(url: string, signal: AbortSignal): Promise<number | undefined> {
  try {
    const response = await fetch(url, { method: 'HEAD', credentials: 'omit', referrerPolicy: 'no-referrer', signal });
    const length = Number(response.headers.get('content-length'));
    return response.ok && Number.isFinite(length) && length > 0 ? length : undefined;
  } catch {
    return undefined;
  }
}

const fileOf = (url: string): string | undefined => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || undefined;
  } catch {
    return undefined;
  }
};

async function loadFeeds(signal: AbortSignal): Promise<FeedRow[]> {
  const [feeds, backups] = await Promise.all([api.advisoryFeeds({ signal }), api.backups({ signal })]);
  const written = new Map(backups.data.map((item) => [item.name, item]));
  return Promise.all(
    feeds.data.map(async (feed): Promise<FeedRow> => {
      const row: FeedRow = { name: feed.name, description: feed.description, records: undefined, backup: undefined };
      const counting = api.advisories({ name: feed.name, limit: 1 }, { signal }).then(
        (page) => {
          row.records = page._meta.total;
        },
        (error: unknown) => {
          row.recordsError = messageOf(error);
        },
      );
      const listed = written.get(feed.name);
      const backingUp = listed?.available
        ? api.backup(feed.name, { signal }).then(
            async (backup) => {
              if (!backup.available) return;
              row.backup = {
                file: fileOf(backup.url_mrap),
                url: backup.url_mrap,
                sha256: backup.sha256,
                writtenAt: listed.backup_written_at,
                expires: backup.url_expires,
                size: await sizeOf(backup.url_mrap, signal),
              };
            },
            (error: unknown) => {
              row.backupError = messageOf(error);
            },
          )
        : undefined;
      await Promise.all([counting, backingUp]);
      return row;
    }),
  );
}

async function loadIndexes(signal: AbortSignal): Promise<IndexRow[]> {
  const indexes = await api.indexBackups({ signal });
  return Promise.all(
    indexes.data.map(async (index): Promise<IndexRow> => {
      try {
        const backup = await api.indexBackup(index.name, { signal });
        const archives = await Promise.all(
          backup.data.map(
            async (archive): Promise<Archive> => ({
              file: archive.filename,
              url: archive.url,
              sha256: archive.sha256,
              writtenAt: archive.date_added,
              expires: archive.url_expires,
              size: await sizeOf(archive.url, signal),
            }),
          ),
        );
        return { name: index.name, description: index.description, archives };
      } catch (error) {
        if (signal.aborted) throw error;
        return { name: index.name, description: index.description, archives: [], error: messageOf(error) };
      }
    }),
  );
}

/** Bytes in KB, MB or GB (powers of 1,024, as download tools show them). */
function formatSize(bytes: number | undefined): string {
  if (bytes === undefined) return '–';
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes.toLocaleString('en')} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function FeedsPage() {
  // Signed URLs last minutes: "Refresh" asks for new ones.
  const [round, setRound] = useState(0);
  const feeds = useApi(`feeds-${round}`, loadFeeds);
  const indexes = useApi(`indexes-${round}`, loadIndexes);
  return (
    <Layout title="Feeds and backups">
      <p class="hint">
        Download links are signed and expire after a few minutes; refresh them before downloading from a page left open.{' '}
        <button type="button" class="secondary small" onClick={() => setRound(round + 1)}>
          Refresh links
        </button>
      </p>
      <section aria-labelledby="feeds-heading">
        <h2 id="feeds-heading">Advisory feeds</h2>
        {feeds.state === 'loading' || feeds.state === 'idle' ? <Loading what="Loading the feeds" /> : null}
        {feeds.state === 'error' ? <ErrorMessage message={feeds.message} /> : null}
        {feeds.state === 'done' ? <FeedTable rows={feeds.data} /> : null}
      </section>
      <section aria-labelledby="indexes-heading">
        <h2 id="indexes-heading">Index backups</h2>
        {indexes.state === 'loading' || indexes.state === 'idle' ? <Loading what="Loading the index backups" /> : null}
        {indexes.state === 'error' ? <ErrorMessage message={indexes.message} /> : null}
        {indexes.state === 'done' ? <IndexTables rows={indexes.data} /> : null}
      </section>
    </Layout>
  );
}

function FeedTable({ rows }: { rows: FeedRow[] }) {
  if (rows.length === 0) return <Empty>Your token may read no feed.</Empty>;
  return (
    <TableWrap label="Advisory feeds and their backups">
      <table class="feeds-table">
        <thead>
          <tr>
            <th scope="col">Feed</th>
            <th scope="col" class="number">
              Records
            </th>
            <th scope="col">Last backup</th>
            <th scope="col">Backup</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name} data-feed={row.name}>
              <td>
                <Link href={urlOf(PORTAL_PAGES.advisories, { name: row.name })}>{row.name}</Link>
                <div class="sub">{row.description}</div>
              </td>
              <td class="number">
                {row.records !== undefined ? (
                  row.records.toLocaleString('en')
                ) : (
                  <span class="error-text">{row.recordsError}</span>
                )}
              </td>
              <td>{row.backup?.writtenAt ? formatDate(row.backup.writtenAt) : '–'}</td>
              <td>
                {row.backup ? (
                  <ArchiveFacts archive={row.backup} />
                ) : row.backupError ? (
                  <span class="error-text">{row.backupError}</span>
                ) : (
                  <span class="empty">no backup yet</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function IndexTables({ rows }: { rows: IndexRow[] }) {
  if (rows.length === 0) return <Empty>No index has a backup.</Empty>;
  return (
    <>
      {rows.map((row) => (
        <section key={row.name} aria-labelledby={`index-${row.name}`}>
          <h3 id={`index-${row.name}`}>{row.name}</h3>
          <p class="sub">{row.description}</p>
          {row.error ? <ErrorMessage message={row.error} /> : null}
          {!row.error && row.archives.length === 0 ? <Empty>No archive written yet.</Empty> : null}
          {row.archives.length > 0 ? (
            <TableWrap label={`Backups of the ${row.name} index`}>
              <table class="feeds-table">
                <thead>
                  <tr>
                    <th scope="col">Written</th>
                    <th scope="col">Backup</th>
                  </tr>
                </thead>
                <tbody>
                  {row.archives.map((archive, index) => (
                    <tr key={archive.url} data-index={row.name}>
                      <td>
                        {formatDate(archive.writtenAt)}
                        {index === 0 ? <div class="sub">latest</div> : null}
                      </td>
                      <td>
                        <ArchiveFacts archive={archive} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          ) : null}
        </section>
      ))}
    </>
  );
}

/** An archive's download link, size, sha256 and link expiry. */
function ArchiveFacts({ archive }: { archive: Archive }) {
  const url = safeHttpUrl(archive.url);
  return (
    <div class="archive">
      {url ? (
        <a href={url} download={archive.file ?? true} rel="noopener noreferrer">
          Download {archive.file ?? 'archive'}
        </a>
      ) : (
        <span>{archive.file}</span>
      )}
      <span class="sub"> {formatSize(archive.size)}</span>
      <div class="sub">
        sha256 <code class="hash">{archive.sha256}</code>
      </div>
      <div class="sub">link valid until {formatDate(archive.expires)}</div>
    </div>
  );
}
