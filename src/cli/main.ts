#!/usr/bin/env node
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadConfig, type ConfigOverrides } from '../config.js';
import { relaunch, relaunchArgs } from './heap-limit.js';
import { parseFeedEntitlement } from '../core/entitlements.js';
import { VulnscopeError } from '../core/errors.js';
import { LoadRefused, parseMaxRejected } from '../core/load-guard.js';
import { parseTokenRateLimit } from '../core/rate-limit.js';
import type { ScanFormat } from '../ingest/readers/index.js';
import { VERSION } from '../version.js';
import { VulnscopeApiError } from '../client/errors.js';
import { exitStatusOf } from './client/exit-status.js';
import { registerBackupClientCommands, registerClientCommands, SCHEMA_COMMANDS } from './client/register.js';
import type { IngestAdvisoriesOptions } from './commands/ingest-advisories.js';
import type { IngestCpeDictionaryOptions } from './commands/knowledge.js';
import type { SyncCommandOptions } from './commands/sync.js';

/**
 * A command's module, loaded when that command runs: loading the server's modules would otherwise
 * slow the start of every `ingest scans` of a continuous feed of scans.
 */
const commands = {
  backup: () => import('./commands/backup.js'),
  demo: () => import('./commands/demo.js'),
  feeds: () => import('./commands/feeds.js'),
  ingestAdvisories: () => import('./commands/ingest-advisories.js'),
  ingestClassifications: () => import('./commands/ingest-classifications.js'),
  ingestScans: () => import('./commands/ingest-scans.js'),
  knowledge: () => import('./commands/knowledge.js'),
  maintenance: () => import('./commands/maintenance.js'),
  serve: () => import('./commands/serve.js'),
  sync: () => import('./commands/sync.js'),
  token: () => import('./commands/token.js'),
};

const positiveInteger = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
};

/** Runs a core parser as a commander option parser (its message becomes the usage error). */
const optionParser =
  <T>(parse: (value: string) => T) =>
  (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };

/**
 * The guard of loads that replace stored data: a load with no valid item, or with more than 1 % of
 * its input rejected, is refused and changes nothing; these flags override it on purpose.
 */
const ALLOW_EMPTY = [
  '--allow-empty',
  'let a load with no valid record through (a replacing load then empties what it replaces)',
] as const;
const MAX_REJECTED = [
  '--max-rejected <percent>',
  'refuse the load (changing nothing) when more than this share of its input is rejected (default 1%)',
  optionParser(parseMaxRejected),
] as const;

const program = new Command('vulnscope')
  .description('Self-hosted vulnerability intelligence with a VulnCheck-compatible API')
  .option('--database-url <url>', 'SQLite file path or sqlite: URL, or postgres:// URL (env VULNSCOPE_DATABASE_URL)')
  .option('--retention-days <days>', 'expire observations older than this; 0 disables (env VULNSCOPE_RETENTION_DAYS)')
  .option('--verbose', 'on an error, print its stack trace after the one-line message')
  .exitOverride()
  // Usage errors too are one line, `vulnscope: <message>`, rather than the message and the whole help.
  .configureOutput({
    outputError: (text, write) => write(`vulnscope: ${oneLine(text.replace(/^error: /, ''))} (see --help)\n`),
  })
  .addHelpText(
    'after',
    `
Errors:
  Every error is one line on stderr, "vulnscope: <message>", and a non-zero exit
  status (2 for a usage error); --verbose adds the stack trace. An input that
  cannot be decoded (corrupt gzip), or from which nothing could be read (empty,
  another kind of file), is one such line naming it and exit status 1.
  The client commands (index, indices, advisory, cpe, backup list|url|download
  against a server) exit 3 for authentication or entitlement (401, 402), 4 when
  still rate limited after their retries (429), 5 for a server or network
  error (5xx, unreachable, timeout, a cut export).

Guarded loads:
  A load that replaces stored data (ingest advisories, sync, ingest
  classifications) and yields no valid record, or rejects more than 1% of what
  it read, changes nothing and exits 1 saying why; --allow-empty and
  --max-rejected N% let it through on purpose.`,
  )
  .addHelpText(
    'after',
    '\n"vulnscope --version" (or -V) prints the version.\n\nLong commands show a progress bar (or a live count with its rate) on stderr when it is a terminal,\nthen print a summary on stderr either way; data (tokens, JSON) goes to stdout.',
  );

/** Global flags + the command's own flags + environment → the one config object. */
const config = (own: ConfigOverrides = {}) => loadConfig(process.env, { ...program.opts<ConfigOverrides>(), ...own });

program
  .command('serve')
  .description('serve the API; exits 1 at once, naming the address, when it cannot listen (port in use)')
  .option('--host <host>', 'listen address (env VULNSCOPE_HOST, default 127.0.0.1)')
  .option('--port <port>', 'listen port (env VULNSCOPE_PORT, default 8080)')
  .option('--public-url <url>', 'base for absolute links (env VULNSCOPE_PUBLIC_URL)')
  .option('--token-idle-days <days>', 'tokens unused this long expire (env VULNSCOPE_TOKEN_IDLE_DAYS, default 30)')
  .option('--asn-mmdb <file>', 'ASN MaxMind database (env VULNSCOPE_ASN_MMDB)')
  .option('--country-mmdb <file>', 'country MaxMind database (env VULNSCOPE_COUNTRY_MMDB)')
  .option('--as-domain-csv <file>', 'asn,domain CSV (env VULNSCOPE_AS_DOMAIN_CSV)')
  .option('--log-level <level>', 'fatal, error, warn, info, debug (env VULNSCOPE_LOG_LEVEL)')
  .option(
    '--rate-limit <spec>',
    'request budget per token, e.g. 600/60s or index=1200/60s,backup=10/1h or unlimited (env VULNSCOPE_RATE_LIMIT)',
  )
  .option('--redis-url <url>', 'share rate-limit budgets between instances through Redis (env VULNSCOPE_REDIS_URL)')
  .option('--feeds-file <file>', 'feed registry (JSON) adding to the built-in feeds (env VULNSCOPE_FEEDS_FILE)')
  .option('--default-feeds <list>', 'feeds of tokens that carry none: a,b or * or none (env VULNSCOPE_DEFAULT_FEEDS)')
  .option(
    '--workers <n>',
    'server processes sharing the port, each with its own index (env VULNSCOPE_WORKERS, default 1)',
  )
  .action(async (options: ConfigOverrides) => (await commands.serve()).serve(config(options)));

program
  .command('migrate')
  .description('create or upgrade the database schema')
  .action(async () => (await commands.maintenance()).runMigrations(config()));

program
  .command('demo')
  .description(
    'fill an empty database with a generated demo dataset (advisories and CPE dictionary entries, then hosts matched against that knowledge, then backups), print the demo token (kept beside an SQLite database and reused while valid) and serve',
  )
  .option(
    '--records <n>',
    'demo observations to generate, in reserved address ranges (RFC 5737, RFC 3849, RFC 2544)',
    positiveInteger,
    5000,
  )
  .option('--no-serve', 'only prepare the data and print the token')
  .option('--host <host>', 'listen address (env VULNSCOPE_HOST, default 127.0.0.1)')
  .option('--port <port>', 'listen port (env VULNSCOPE_PORT, default 8080); exits 1 at once when it is in use')
  .action(async (options: { records: number; serve: boolean; host?: string; port?: string }) =>
    (await commands.demo()).demo(config({ host: options.host, port: options.port }), options),
  );

const ingest = program.command('ingest').description('load data');

ingest
  .command('scans')
  .description(
    'ingest scan results (Vulnscope NDJSON, nmap XML, Shodan JSON, masscan JSON; gzip ok); - reads stdin; an input nothing could be read from (empty, another kind of file, corrupt gzip) is reported in one line and exits 1',
  )
  .argument('<files...>', 'files, or - for standard input')
  .addOption(new Option('--format <format>', 'skip auto-detection').choices(['ndjson', 'nmap', 'shodan', 'masscan']))
  .option('--strict', 'exit with status 1 when any line was rejected')
  .option('--batch-size <n>', 'observations per transaction', positiveInteger, 1000)
  .option('--asn-mmdb <file>', 'ASN MaxMind database (env VULNSCOPE_ASN_MMDB)')
  .option('--country-mmdb <file>', 'country MaxMind database (env VULNSCOPE_COUNTRY_MMDB)')
  .option('--as-domain-csv <file>', 'asn,domain CSV (env VULNSCOPE_AS_DOMAIN_CSV)')
  .action(
    async (
      files: string[],
      options: { format?: ScanFormat; strict?: boolean; batchSize: number } & ConfigOverrides,
    ) => {
      const settings = config(options);
      const again = relaunchArgs(process.execArgv, process.argv, settings.ingestHeapMb);
      process.exitCode = again
        ? await relaunch(again)
        : await (await commands.ingestScans()).ingestScans(settings, files, options);
    },
  );

ingest
  .command('classifications')
  .description('load (or replace) a classification list of IPs/CIDRs and re-apply it to records')
  .argument('<file>', 'IP/CIDR list or CSV')
  .option('--as <classification>', 'type[:product] for a plain list, or the type for --tag-column values')
  .option('--ip-column <name>', 'CSV column with the IP or CIDR')
  .option('--tag-column <name>', 'CSV column with a tag that becomes the product (or is mapped with --map)')
  .option('--map <file>', 'tag → classification mapping file')
  .option('--name <name>', 'list name (default: the file name); loading the same name replaces the list')
  .option('--strict', 'exit with status 1 when any line was rejected')
  .option(ALLOW_EMPTY[0], 'let a file with no valid entry through (replacing the list with an empty one)')
  .option(
    MAX_REJECTED[0],
    'refuse the file (changing nothing) when more than this share of its lines is rejected (default 1%)',
    MAX_REJECTED[2],
  )
  .action(async (file: string, options) => {
    process.exitCode = await (await commands.ingestClassifications()).ingestClassifications(config(), file, options);
  });

ingest
  .command('advisories')
  .description(
    'load advisory records into a feed (replacing its content unless --merge); gzip, directories and zips ok',
  )
  .requiredOption('--feed <name>', 'feed to load (see "vulnscope feeds"); an unregistered name needs --adapter')
  .argument('[sources...]', "files, directories or zips (default: the feed's configured local source)")
  .option(
    '--adapter <name>',
    "how to read the sources: mitre-cvelist-v5, nist-nvd2, cisa-kev, osv (default: the feed's)",
  )
  .option('--description <text>', 'feed description for a new, unregistered feed')
  .option('--merge', 'add and update records only; keep records the sources do not have')
  .option('--strict', 'exit with status 1 when any record was rejected')
  .option(...ALLOW_EMPTY)
  .option(...MAX_REJECTED)
  .option('--batch-size <n>', 'records per transaction', positiveInteger, 500)
  .option('--feeds-file <file>', 'feed registry (env VULNSCOPE_FEEDS_FILE)')
  .action(async (sources: string[], options: IngestAdvisoriesOptions & { feedsFile?: string }) => {
    process.exitCode = await (await commands.ingestAdvisories()).ingestAdvisories(
      config({ feedsFile: options.feedsFile }),
      sources,
      options,
    );
  });

ingest
  .command('cpe-dictionary')
  .description(
    'load NVD CPE dictionary names and renames (CPE API 2.0 products, Match Criteria API 2.0 objects; JSONL or API pages; gzip, directories and zips ok)',
  )
  .argument('<sources...>', 'files, directories or zips')
  .option('--strict', 'exit with status 1 when any item was rejected')
  .option('--batch-size <n>', 'names per transaction', positiveInteger, 1000)
  .action(async (sources: string[], options: IngestCpeDictionaryOptions) => {
    process.exitCode = await (await commands.knowledge()).ingestCpeDictionaryCommand(config(), sources, options);
  });

const knowledge = program
  .command('knowledge')
  .description('vulnerability knowledge derived from the advisory feeds (see docs/knowledge.md)');
knowledge
  .command('rebuild')
  .description(
    're-derive applicability and the criteria index from the nist-nvd2 and mitre-cvelist-v5 feeds (changed CVEs only unless --force)',
  )
  .option('--force', 're-derive every CVE, even those whose records are unchanged')
  .option('--batch-size <n>', 'CVEs per transaction', positiveInteger, 500)
  .action(async (options: { force?: boolean; batchSize: number }) => {
    process.exitCode = await (await commands.knowledge()).knowledgeRebuild(config(), options);
  });
knowledge
  .command('remap')
  .description(
    'match stored records again for the knowledge changes since the last re-map (a running server does this by itself; use this without one)',
  )
  .action(async () => {
    process.exitCode = await (await commands.knowledge()).knowledgeRemap(config());
  });

program
  .command('sync')
  .description(
    'bring feeds up to date: nist-nvd2 and cpe-dictionary from the NVD APIs (incremental, resumable; env VULNSCOPE_NVD_API_KEY, VULNSCOPE_NVD_BASE_URL), mitre-cvelist-v5 from the latest cvelistV5 release (env VULNSCOPE_CVELIST_URL), other feeds by downloading their configured URL (skipped when unchanged) and replacing the feed',
  )
  .argument('[feeds...]', 'feed names, or cpe-dictionary')
  .option('--all', 'every feed with a configured source')
  .option('--force', 'download and load even when the source is unchanged; NVD API syncs load everything again')
  .option('--strict', 'exit with status 1 when any record was rejected')
  .option(...ALLOW_EMPTY)
  .option(...MAX_REJECTED)
  .option('--feeds-file <file>', 'feed registry (env VULNSCOPE_FEEDS_FILE)')
  .action(async (feeds: string[], options: SyncCommandOptions & { feedsFile?: string }) => {
    process.exitCode = await (await commands.sync()).syncFeeds(
      config({ feedsFile: options.feedsFile }),
      feeds,
      options,
    );
  });

program
  .command('feeds')
  .description('list the advisory feeds: registered and loaded, with record counts')
  .option('--json', 'machine-readable output')
  .option('--feeds-file <file>', 'feed registry (env VULNSCOPE_FEEDS_FILE)')
  .action(async (options: { json?: boolean; feedsFile?: string }) =>
    (await commands.feeds()).listFeeds(config({ feedsFile: options.feedsFile }), Boolean(options.json)),
  );

program
  .command('expire')
  .description('remove observations older than the retention window now')
  .action(async () => (await commands.maintenance()).runExpiry(config()));

const backup = program.command('backup').description('backup archives of the feeds and indexes (see docs/backups.md)');
backup
  .command('write')
  .description('write backup archives now (every feed and index unless --feed or --index)')
  .option('--feed <name>', 'only this advisory feed')
  .option('--index <name>', 'only this v3 index (target-intel)')
  .option('--backup-dir <dir>', 'where archives go (env VULNSCOPE_BACKUP_DIR, default ./data/backups)')
  .action(async (options: { feed?: string; index?: string; backupDir?: string }) => {
    process.exitCode = await (await commands.backup()).backupWrite(config({ backupDir: options.backupDir }), options);
  });
backup
  .command('list')
  .description(
    'list backups: the archives in the local backup directory for the feeds and indexes of the local database; with env VULNSCOPE_URL (and VULNSCOPE_TOKEN), those that server offers',
  )
  .option('--json', 'machine-readable output (locally: every archive with its path and sha256)')
  .option('--backup-dir <dir>', 'the local backup directory (env VULNSCOPE_BACKUP_DIR, default ./data/backups)')
  .option('--url <url>', 'ask this server (env VULNSCOPE_URL)')
  .option('--token <token>', 'the API token for the server (env VULNSCOPE_TOKEN)')
  .action(async (options: { json?: boolean; backupDir?: string; url?: string; token?: string }) =>
    (await commands.backup()).backupList(config({ backupDir: options.backupDir }), Boolean(options.json), options),
  );
registerBackupClientCommands(backup, config);
registerClientCommands(
  program,
  config,
  process.argv.slice(2).some((arg) => SCHEMA_COMMANDS.has(arg)) ? await import('../core/api/index.js') : undefined,
);

const token = program.command('token').description('manage API tokens');
token
  .command('create')
  .description('create a token; prints only the token on stdout')
  .requiredOption('--name <name>', 'who or what the token is for')
  .option(
    '--feeds <list>',
    'advisory feeds it may read: a,b (registered or loaded feeds; see "vulnscope feeds") or * or none (default: env VULNSCOPE_DEFAULT_FEEDS, else *)',
    optionParser(parseFeedEntitlement),
  )
  .option(
    '--rate-limit <n>',
    'its own budget: requests per window of each endpoint group, or unlimited (default: env VULNSCOPE_RATE_LIMIT)',
    optionParser(parseTokenRateLimit),
  )
  .option('--feeds-file <file>', 'feed registry whose feeds --feeds may name (env VULNSCOPE_FEEDS_FILE)')
  .option('--admin', 'an admin token: may list, create and revoke every token over HTTP (/v3/tokens)')
  .action(
    async (options: {
      name: string;
      feeds?: ReturnType<typeof parseFeedEntitlement>;
      rateLimit?: ReturnType<typeof parseTokenRateLimit>;
      feedsFile?: string;
      admin?: boolean;
    }) => (await commands.token()).createToken(config({ feedsFile: options.feedsFile }), options.name, options),
  );
token
  .command('list')
  .description('list tokens (never their secrets), with whether each is an admin token and which token created it')
  .option('--json', 'machine-readable output')
  .action(async (options: { json?: boolean }) => (await commands.token()).listTokens(config(), Boolean(options.json)));
token
  .command('revoke')
  .description('revoke a token by id (and the child tokens it created)')
  .argument('<id>', 'token id (see token list)', positiveInteger)
  .action(async (id: number) => (await commands.token()).revokeToken(config(), id));

/** How to let a refused load through on purpose, e.g. ` (--allow-empty to load it anyway)`. */
function overrideHint(error: LoadRefused): string {
  const flags = [
    ...(error.overrides.allowEmpty ? ['--allow-empty'] : []),
    ...(error.overrides.maxRejectedPercent !== undefined
      ? [`--max-rejected ${error.overrides.maxRejectedPercent}%`]
      : []),
  ];
  return flags.length > 0 ? ` (${flags.join(' ')} to load it anyway)` : '';
}

/** A message as one line (a driver's or parser's message may span several). */
function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ');
}

/**
 * Every error ends the command as one line, `vulnscope: <message>` (exit status 2 for a usage
 * error, else 1); `--verbose` adds the stack trace. An error of no known kind is a bug or a
 * failure nothing anticipated: its message still comes first, and the stack is one flag away.
 */
function reportError(error: unknown): void {
  if (error instanceof CommanderError) {
    // Help or the version was asked for (0), or a usage error whose line commander has written.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    return;
  }
  const verbose = program.opts<{ verbose?: boolean }>().verbose === true || process.argv.includes('--verbose');
  if (error instanceof VulnscopeApiError) {
    // The SDK's errors (client commands): the exit status says which kind (see the help).
    process.stderr.write(`vulnscope: ${oneLine(error.message)}\n`);
    process.exitCode = exitStatusOf(error);
  } else if (error instanceof VulnscopeError) {
    process.stderr.write(
      `vulnscope: ${oneLine(error.message)}${error instanceof LoadRefused ? overrideHint(error) : ''}\n`,
    );
    process.exitCode = error.status === 400 ? 2 : 1;
  } else {
    const message = error instanceof Error ? error.message || error.name : String(error);
    process.stderr.write(`vulnscope: ${oneLine(message)}${verbose ? '' : ' (--verbose prints the stack trace)'}\n`);
    process.exitCode = 1;
  }
  if (verbose && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
}

/**
 * `--version` (`-V`) before any command prints the version. It is not a commander option of the
 * program: those are read anywhere on the line, and `--version` is a parameter of the client
 * commands (`vulnscope cpe --vendor apache --version 2.4.49`).
 */
function versionAsked(args: string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--version' || arg === '-V') return true;
    if (!arg.startsWith('-')) return false;
    if ((arg === '--database-url' || arg === '--retention-days') && !arg.includes('=')) i++;
  }
  return false;
}

if (versionAsked(process.argv.slice(2))) process.stdout.write(`${VERSION}\n`);
else program.parseAsync(process.argv).catch(reportError);
