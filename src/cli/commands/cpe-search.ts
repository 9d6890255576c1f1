/**
 * `vulnscope cpe [CPE]`: CPE names like the one given and the CVEs of each (`GET /v3/search/cpe`),
 * as the official CLI's `vulncheck cpe <scheme>`; the CPE's part, vendor, product and version
 * fill the options not given.
 */
import type { CpeSearchQuery } from '../../client/types.js';
import { CpeSearchQuery as QuerySchema } from '../../core/api/index.js';
import type { Config } from '../../config.js';
import { ANY, parseCpeQuery, unquoteWfnValue } from '../../core/cpe.js';
import { invalidInput } from '../../core/errors.js';
import { type ConnectOptions, connect } from '../client/connect.js';
import { cell, formatOf } from '../client/emit.js';
import { checkOutput, type Layout, type OutputOptions, printPage } from '../client/listing.js';
import { queryOf } from '../client/schema-options.js';

type Row = { cpe?: string; cves?: string[] };

const CPE_LAYOUT: Layout<Row, string> = {
  header: { cpe: 'CPE', count: 'CVES', cves: 'CVE IDS' },
  row: (row) => ({ cpe: cell(row.cpe, 80), count: row.cves?.length ?? 0, cves: cell(row.cves, 80) }),
};

/** part, vendor, product and version of a CPE 2.3 or 2.2 name (ANY attributes left out). */
function attributesOf(text: string): Partial<CpeSearchQuery> {
  let wfn: ReturnType<typeof parseCpeQuery>;
  try {
    wfn = parseCpeQuery(text);
  } catch (error) {
    throw invalidInput((error as Error).message);
  }
  const query: Record<string, string> = {};
  for (const attribute of ['part', 'vendor', 'product', 'version'] as const) {
    if (wfn[attribute] !== ANY) query[attribute] = unquoteWfnValue(wfn[attribute]);
  }
  return query as Partial<CpeSearchQuery>;
}

export async function cpeSearch(
  config: Config,
  cpe: string | undefined,
  options: ConnectOptions & OutputOptions & Record<string, unknown>,
): Promise<void> {
  checkOutput(options);
  const query = { ...(cpe ? attributesOf(cpe) : {}), ...queryOf<CpeSearchQuery>(QuerySchema, options) };
  const format = formatOf(options);
  const page = await connect(config, options).cpeSearch(query);
  await printPage(page, page.data ?? [], format, CPE_LAYOUT);
  if (format === 'table') {
    const meta = page._meta as Record<string, unknown>;
    process.stderr.write(
      `${page.data?.length ?? 0} of ${meta.total_documents ?? '?'} CPE names (page ${meta.page ?? 1} of ${meta.total_pages ?? '?'})\n`,
    );
  }
}
