// Bundles the web portal (src/portal) into dist/portal: hashed script and style files and a
// manifest.json naming them, which the server reads at start.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(root, 'dist', 'portal');
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

const entry = path.join(root, 'src', 'portal', 'main.tsx');
const result = await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir,
  // The map's shapes are a chunk of their own, loaded by the pages that draw a map.
  splitting: true,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});

const manifest = { files: {} };
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  const name = path.basename(file);
  // The page's script; dynamically imported modules are entry points of their own in the metafile.
  if (output.entryPoint && path.resolve(root, output.entryPoint) === entry && name.endsWith('.js')) {
    manifest.script = name;
  }
  if (name.endsWith('.css')) manifest.style = name;
  manifest.files[name] = output.bytes;
}
copyFileSync(path.join(root, 'src', 'portal', 'favicon.svg'), path.join(outdir, 'favicon.svg'));
if (!manifest.script || !manifest.style) throw new Error('the portal build made no script or no style');
writeFileSync(path.join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
