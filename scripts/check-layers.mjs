// Fails when a module of src/ imports against the layer direction of docs/architecture.md:
//   core ← config ← storage ← search, ingest, backup ← services ← server ← cli
//   core ← client (fetch only)
//   core, client ← portal (the browser's pages, bundled by scripts/build-portal.mjs)
// and when a module outside src/storage imports anything of it but its index.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = path.join(root, 'src');

/** What each layer may import, besides itself. */
const ALLOWED = {
  core: [],
  config: ['core'],
  storage: ['core', 'config'],
  search: ['core', 'config', 'storage'],
  ingest: ['core', 'config', 'storage'],
  backup: ['core', 'config', 'storage'],
  services: ['core', 'config', 'storage', 'search', 'ingest', 'backup'],
  server: ['core', 'config', 'storage', 'search', 'backup', 'services'],
  cli: ['core', 'config', 'storage', 'search', 'ingest', 'backup', 'services', 'server', 'client'],
  client: ['core'],
  portal: ['core', 'client'],
};
/** npm packages a layer must not load (the client runs anywhere fetch does). */
const FORBIDDEN_PACKAGES = {
  client: ['better-sqlite3', 'pg', 'roaring', 'ioredis', 'fastify', 'yauzl', 'yazl', 'mmdb-lib'],
  portal: ['better-sqlite3', 'pg', 'roaring', 'ioredis', 'fastify', 'yauzl', 'yazl', 'mmdb-lib'],
  core: ['better-sqlite3', 'pg', 'ioredis', 'fastify'],
};

function layerOf(file) {
  const relative = path.relative(src, file).split(path.sep);
  if (relative.length === 1) return relative[0] === 'config.ts' || relative[0] === 'version.ts' ? 'config' : undefined;
  return relative[0] in ALLOWED ? relative[0] : undefined;
}

function* sourceFiles(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) yield full;
  }
}

const IMPORT = /\b(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const problems = [];
for (const file of sourceFiles(src)) {
  const layer = layerOf(file);
  const name = path.relative(root, file);
  if (!layer) {
    problems.push(`${name}: not in any layer (add its folder to scripts/check-layers.mjs)`);
    continue;
  }
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (!specifier.startsWith('.')) {
      const pkg = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      if (FORBIDDEN_PACKAGES[layer]?.includes(pkg)) problems.push(`${name}: ${layer} must not load ${pkg}`);
      continue;
    }
    const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
    const targetLayer = layerOf(target);
    if (targetLayer === undefined) {
      problems.push(`${name}: imports ${specifier}, outside src/`);
    } else if (targetLayer !== layer && !ALLOWED[layer].includes(targetLayer)) {
      problems.push(`${name}: ${layer} imports ${targetLayer} (${specifier})`);
    } else if (targetLayer === 'storage' && layer !== 'storage' && target !== path.join(src, 'storage', 'index.ts')) {
      problems.push(`${name}: imports ${specifier}; outside storage, import src/storage/index.ts only`);
    }
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} import(s) against the layers (see docs/architecture.md)`);
  process.exit(1);
}
console.log('layers hold');
