/**
 * `vulnscope index list|facets|export <index>` and `vulnscope indices list`: the target-intel
 * index and the index list of a server, through the SDK (VULNSCOPE_URL, VULNSCOPE_TOKEN).
 */
import type { TargetIntelRecord } from '../../client/index.js';
import {
  TargetIntelExportQuery as ExportSchema,
  TargetIntelFacetsQuery as FacetsSchema,
  TargetIntelQuery as QuerySchema,
} from '../../core/api/index.js';
import type { TargetIntelExportQuery, TargetIntelFacetsQuery, TargetIntelQuery } from '../../client/types.js';
import type { Config } from '../../config.js';
import { invalidInput } from '../../core/errors.js';
import { type ConnectOptions, connect } from '../client/connect.js';
import { cell, formatOf, json, TableWriter } from '../client/emit.js';
import { checkOutput, type Layout, type OutputOptions, printPage, printStream } from '../client/listing.js';
import { queryOf } from '../client/schema-options.js';

/** The indexes these commands query. */
export const QUERYABLE_INDEXES = ['target-intel'];

function checkIndex(index: string): void {
  if (!QUERYABLE_INDEXES.includes(index)) {
    throw invalidInput(
      `index "${index}" cannot be queried (queryable: ${QUERYABLE_INDEXES.join(', ')}; "vulnscope indices list" lists the server's indexes)`,
    );
  }
}

type Loose = Record<string, unknown>;

/** The first fingerprint's `vendor product version`, else the record's own lists. */
function productOf(record: Loose): string {
  const first = (record.fingerprints as Loose[] | undefined)?.[0];
  const parts = first
    ? [first.vendor, first.product, first.version]
    : [
        (record.vendor as string[] | undefined)?.[0],
        (record.product as string[] | undefined)?.[0],
        (record.version as string[] | undefined)?.[0],
      ];
  return parts.filter((part) => typeof part === 'string' && part !== '').join(' ');
}

export const TARGET_INTEL_LAYOUT: Layout<TargetIntelRecord, string> = {
  header: {
    ip: 'IP',
    port: 'PORT',
    hostname: 'HOSTNAME',
    product: 'PRODUCT',
    cve: 'CVES',
    country: 'COUNTRY',
    seen: 'LAST SEEN',
  },
  row(record) {
    const r = record as Loose;
    return {
      ip: cell(r.ip),
      port: `${cell(r.port)}/${cell(r.protocol)}`,
      hostname: cell(r.hostname, 40),
      product: cell(productOf(r), 40),
      cve: cell(r.cve, 50),
      country: cell(r.country_code),
      seen: cell(r.timestamp),
    };
  },
};

export interface IndexListOptions extends ConnectOptions, OutputOptions, Loose {}

/** `index list target-intel`: one page, or with `--all` every record of a cursor walk. */
export async function indexList(config: Config, index: string, options: IndexListOptions): Promise<void> {
  checkIndex(index);
  checkOutput(options);
  const format = formatOf(options);
  const query = queryOf<TargetIntelQuery>(QuerySchema, options);
  const client = connect(config, options);
  if (!options.all) {
    const page = await client.targetIntel(query);
    await printPage(page, page.data ?? [], format, TARGET_INTEL_LAYOUT);
    if (format === 'table') {
      const meta = page._meta as Loose;
      process.stderr.write(
        `${page.data?.length ?? 0} of ${meta.total_documents ?? '?'} records (page ${meta.page ?? 1} of ${meta.total_pages ?? '?'}; --all for every record)\n`,
      );
    }
    return;
  }
  if (query.page !== undefined) throw invalidInput('--all walks every page: leave out --page');
  const { page: _, ...walk } = query;
  const count = await printStream(
    `index ${index}`,
    client.targetIntelRecords({ limit: 2000, ...walk }),
    format,
    TARGET_INTEL_LAYOUT,
    async () => (await client.targetIntel({ ...walk, limit: 1 }))._meta.total_documents,
  );
  process.stderr.write(`${count} records\n`);
}

/** `index facets target-intel --fields …`: counts per value. */
export async function indexFacets(config: Config, index: string, options: IndexListOptions): Promise<void> {
  checkIndex(index);
  const query = queryOf<TargetIntelFacetsQuery>(FacetsSchema, options);
  const facets = await connect(config, options).targetIntelFacets(query);
  if (options.json) return json(facets);
  const table = new TableWriter({ field: 'FIELD', value: 'VALUE', count: 'COUNT' });
  const rows: Array<{ field: string; value: string; count: string }> = [];
  for (const [field, counts] of Object.entries(facets.data ?? {})) {
    for (const value of counts.values)
      rows.push({ field, value: cell(value.value), count: value.count.toLocaleString('en-US') });
    if (counts.other > 0) rows.push({ field, value: '(other)', count: counts.other.toLocaleString('en-US') });
    if (counts.missing > 0) rows.push({ field, value: '(none)', count: counts.missing.toLocaleString('en-US') });
  }
  await table.write(rows);
  process.stderr.write(`${facets._meta.total_documents ?? '?'} matching records\n`);
}

/** `index export target-intel`: every match as NDJSON; a cut export fails (exit 5). */
export async function indexExport(config: Config, index: string, options: IndexListOptions): Promise<void> {
  checkIndex(index);
  const query = queryOf<TargetIntelExportQuery>(ExportSchema, options);
  const client = connect(config, options);
  const count = await printStream(
    `export ${index}`,
    client.targetIntelExport(query),
    'ndjson',
    TARGET_INTEL_LAYOUT,
    async () => (await client.targetIntel({ ...query, limit: 1 }))._meta.total_documents,
  );
  process.stderr.write(`exported ${count} records (complete)\n`);
}

/** `indices list`: the server's v3 indexes. */
export async function indicesList(config: Config, options: ConnectOptions & { json?: boolean }): Promise<void> {
  const indexes = await connect(config, options).indexes();
  if (options.json) return json(indexes);
  await new TableWriter({ name: 'NAME', description: 'DESCRIPTION' }).write(
    (indexes.data ?? []).map((item) => ({ name: cell(item.name), description: cell(item.description, 100) })),
  );
}
