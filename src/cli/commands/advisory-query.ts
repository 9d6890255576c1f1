/**
 * `vulnscope advisory list|export|feeds`: the advisories of a server's feeds through the SDK
 * (VULNSCOPE_URL, VULNSCOPE_TOKEN).
 */
import type { AdvisoryRecord } from '../../client/index.js';
import type { AdvisoryExportQuery, AdvisoryQuery } from '../../client/types.js';
import { AdvisoryExportQuery as ExportSchema, AdvisoryQuery as QuerySchema } from '../../core/api/index.js';
import type { Config } from '../../config.js';
import { invalidInput } from '../../core/errors.js';
import { type ConnectOptions, connect } from '../client/connect.js';
import { cell, formatOf, json, TableWriter } from '../client/emit.js';
import { checkOutput, type Layout, type OutputOptions, printPage, printStream } from '../client/listing.js';
import { queryOf } from '../client/schema-options.js';

type Loose = Record<string, unknown>;

/** The parts of a CVE record the table shows. */
interface RecordParts {
  id?: string;
  cveMetadata?: { cveId?: string; state?: string; dateUpdated?: string; datePublished?: string };
  containers?: { cna?: { descriptions?: Array<{ lang?: string; value?: string }> } };
}

export const ADVISORY_LAYOUT: Layout<AdvisoryRecord, string> = {
  header: { id: 'ID', state: 'STATE', updated: 'UPDATED', description: 'DESCRIPTION' },
  row(record) {
    const r = record as RecordParts;
    const meta = r.cveMetadata ?? {};
    const descriptions = r.containers?.cna?.descriptions ?? [];
    const english = descriptions.find((d) => String(d.lang).startsWith('en')) ?? descriptions[0];
    return {
      id: cell(meta.cveId ?? r.id),
      state: cell(meta.state),
      updated: cell(meta.dateUpdated ?? meta.datePublished),
      description: cell(english?.value, 80),
    };
  },
};

export interface AdvisoryListOptions extends ConnectOptions, OutputOptions, Loose {}

/** `advisory list`: one page, or with `--all` every advisory of a cursor walk. */
export async function advisoryList(config: Config, options: AdvisoryListOptions): Promise<void> {
  checkOutput(options);
  const format = formatOf(options);
  const query = queryOf<AdvisoryQuery>(QuerySchema, options);
  const client = connect(config, options);
  if (!options.all) {
    const page = await client.advisories(query);
    await printPage(page, page.data ?? [], format, ADVISORY_LAYOUT);
    if (format === 'table') {
      const meta = page._meta as Loose;
      process.stderr.write(
        `${page.data?.length ?? 0} of ${meta.filtered ?? '?'} advisories (page ${meta.page ?? 1} of ${meta.pages ?? '?'}; --all for every advisory)\n`,
      );
    }
    return;
  }
  if (query.page !== undefined) throw invalidInput('--all walks every page: leave out --page');
  const { page: _, ...walk } = query;
  const count = await printStream(
    'advisories',
    client.advisoryRecords({ limit: 100, ...walk }),
    format,
    ADVISORY_LAYOUT,
    async () => (await client.advisories({ ...walk, limit: 1 }))._meta.filtered,
  );
  process.stderr.write(`${count} advisories\n`);
}

/** `advisory export`: every matching advisory as NDJSON; a cut export fails (exit 5). */
export async function advisoryExport(config: Config, options: AdvisoryListOptions): Promise<void> {
  const query = queryOf<AdvisoryExportQuery>(ExportSchema, options);
  const client = connect(config, options);
  const count = await printStream(
    'export advisories',
    client.advisoryExport(query),
    'ndjson',
    ADVISORY_LAYOUT,
    async () => (await client.advisories({ ...query, limit: 1 }))._meta.filtered,
  );
  process.stderr.write(`exported ${count} advisories (complete)\n`);
}

/** `advisory feeds`: the feeds the token may read. */
export async function advisoryFeeds(config: Config, options: ConnectOptions & { json?: boolean }): Promise<void> {
  const feeds = await connect(config, options).advisoryFeeds();
  if (options.json) return json(feeds);
  await new TableWriter({ name: 'NAME', description: 'DESCRIPTION' }).write(
    (feeds.data ?? []).map((feed) => ({ name: cell(feed.name), description: cell(feed.description, 100) })),
  );
}
