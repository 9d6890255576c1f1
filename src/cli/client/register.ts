/**
 * The client commands: they ask a server through the SDK (VULNSCOPE_URL and VULNSCOPE_TOKEN, or
 * --url and --token) and are named as the official VulnCheck CLI names its commands where it has
 * one: `index list <index>`, `indices list`, `cpe <scheme>`, `backup url|download <name>`.
 * Filter and paging options come from the endpoints' query schemas (src/core/api).
 */
import type { TObject } from '@sinclair/typebox';
import type { Command } from 'commander';
import type { Config, ConfigOverrides } from '../../config.js';
import { addSchemaOptions } from './schema-options.js';

/** The query schemas of src/core/api (TypeBox takes a while to load: only for these commands). */
export type ApiSchemas = typeof import('../../core/api/index.js');

/** The commands whose options come from the schemas: main.ts loads them when one is named. */
export const SCHEMA_COMMANDS = new Set(['index', 'advisory', 'cpe', 'help']);

const load = {
  index: () => import('../commands/index-query.js'),
  advisory: () => import('../commands/advisory-query.js'),
  cpe: () => import('../commands/cpe-search.js'),
  backup: () => import('../commands/backup-client.js'),
};

type Options = Record<string, unknown> & { url?: string; token?: string };

/** `--url`, `--token` and the output flags every client command has. */
export function clientOptions(command: Command, output: Array<'json' | 'ndjson' | 'all'> = ['json']): Command {
  command
    .option('--url <url>', 'the server (env VULNSCOPE_URL), e.g. http://127.0.0.1:8080')
    .option('--token <token>', 'the API token (env VULNSCOPE_TOKEN, which keeps it out of the process list)');
  if (output.includes('json')) command.option('--json', 'print the whole answer as JSON');
  if (output.includes('ndjson')) command.option('--ndjson', 'print the records as NDJSON, one per line');
  if (output.includes('all'))
    command.option('--all', 'walk every page with a cursor (a progress bar on stderr when it is a terminal)');
  return command;
}

/**
 * Registers the client commands. Without `api` (none of them is on the command line) they are
 * listed in the help without their filter options.
 */
export function registerClientCommands(
  program: Command,
  config: (own?: ConfigOverrides) => Config,
  api: ApiSchemas | undefined,
): void {
  const withOptions = (command: Command, schema: (api: ApiSchemas) => TObject) =>
    api ? addSchemaOptions(command, schema(api)) : command;
  const index = program
    .command('index')
    .description('query an index of a server: target-intel (env VULNSCOPE_URL, VULNSCOPE_TOKEN; see docs/client.md)');
  withOptions(
    clientOptions(
      index
        .command('list')
        .description('list the records of an index matching the filters: one page, or every page with --all')
        .argument('<index>', 'the index: target-intel'),
      ['json', 'ndjson', 'all'],
    ),
    (a) => a.TargetIntelQuery,
  ).action(async (name: string, options: Options) => (await load.index()).indexList(config(), name, options));
  withOptions(
    clientOptions(
      index
        .command('facets')
        .description('count the matching records per value of up to 10 fields (--fields country_code,port:20)')
        .argument('<index>', 'the index: target-intel'),
    ),
    (a) => a.TargetIntelFacetsQuery,
  ).action(async (name: string, options: Options) => (await load.index()).indexFacets(config(), name, options));
  withOptions(
    clientOptions(
      index
        .command('export')
        .description(
          'every matching record as NDJSON on stdout, uncapped; exits 5 when the export was cut before its end',
        )
        .argument('<index>', 'the index: target-intel'),
      [],
    ),
    (a) => a.TargetIntelExportQuery,
  ).action(async (name: string, options: Options) => (await load.index()).indexExport(config(), name, options));

  const indices = program.command('indices').description("a server's v3 indexes");
  clientOptions(indices.command('list').description('list the v3 indexes of a server')).action(
    async (options: Options) => (await load.index()).indicesList(config(), options),
  );

  const advisory = program
    .command('advisory')
    .description("query a server's advisories (env VULNSCOPE_URL, VULNSCOPE_TOKEN; see docs/client.md)");
  withOptions(
    clientOptions(
      advisory
        .command('list')
        .description('list the advisories matching the filters: one page, or every page with --all'),
      ['json', 'ndjson', 'all'],
    ),
    (a) => a.AdvisoryQuery,
  ).action(async (options: Options) => (await load.advisory()).advisoryList(config(), options));
  withOptions(
    clientOptions(
      advisory
        .command('export')
        .description(
          'every matching advisory as NDJSON on stdout, uncapped; exits 5 when the export was cut before its end',
        ),
      [],
    ),
    (a) => a.AdvisoryExportQuery,
  ).action(async (options: Options) => (await load.advisory()).advisoryExport(config(), options));
  clientOptions(advisory.command('feeds').description('list the advisory feeds the token may read')).action(
    async (options: Options) => (await load.advisory()).advisoryFeeds(config(), options),
  );

  withOptions(
    clientOptions(
      program
        .command('cpe')
        .description("CPE names like the one given, each with its CVEs (a server's GET /v3/search/cpe)")
        .argument(
          '[cpe]',
          'a CPE 2.3 or 2.2 name, e.g. cpe:2.3:a:apache:http_server:2.4.49; options override its parts',
        ),
      ['json', 'ndjson'],
    ),
    (a) => a.CpeSearchQuery,
  ).action(async (cpe: string | undefined, options: Options) => (await load.cpe()).cpeSearch(config(), cpe, options));
}

/** `backup url` and `backup download`: the server side of `backup`. */
export function registerBackupClientCommands(backup: Command, config: (own?: ConfigOverrides) => Config): void {
  clientOptions(
    backup
      .command('url')
      .description(
        "print the signed download URL of a feed's or an index's latest backup on a server (no token needed to fetch it)",
      )
      .argument('<name>', 'feed name, or index name (target-intel)'),
  ).action(async (name: string, options: Options) => (await load.backup()).backupUrl(config(), name, options));
  clientOptions(
    backup
      .command('download')
      .description(
        'download the latest backup of a feed (GET /v4/backup/{feed}) or of an index such as target-intel (GET /v3/backup/{index}) from a server and verify its sha256 (env VULNSCOPE_URL, VULNSCOPE_TOKEN)',
      )
      .argument('<name>', 'feed name, or index name (target-intel)')
      .option('--out <file>', 'where to write the zip (default: its name in the current directory)'),
    [],
  ).action(async (name: string, options: Options & { out?: string }) => {
    process.exitCode = await (await load.backup()).backupDownload(config(), name, options);
  });
}
