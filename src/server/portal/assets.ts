import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The build's output (scripts/build-portal.mjs): the same place from src/ and from dist/. */
const BUILT_DIR = fileURLToPath(new URL('../../../dist/portal/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

export interface PortalAsset {
  type: string;
  body: Buffer;
  gzipped: Buffer;
}

interface Manifest {
  script: string;
  style: string;
  files: Record<string, number>;
}

/** The portal's built files, read once into memory (a few hundred KB) with their gzip forms. */
export class PortalAssets {
  private constructor(
    readonly script: string,
    readonly style: string,
    private readonly files: Map<string, PortalAsset>,
  ) {}

  /** The built portal, or undefined when it was not built (`npm run build` builds it). */
  static load(dir = BUILT_DIR): PortalAssets | undefined {
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    } catch {
      return undefined;
    }
    const files = new Map<string, PortalAsset>();
    for (const name of [...Object.keys(manifest.files), 'favicon.svg']) {
      const type = TYPES[path.extname(name)];
      if (!type || name.endsWith('.map')) continue;
      const body = readFileSync(path.join(dir, name));
      files.set(name, { type, body, gzipped: gzipSync(body, { level: 9 }) });
    }
    return new PortalAssets(manifest.script, manifest.style, files);
  }

  get(name: string): PortalAsset | undefined {
    return this.files.get(name);
  }
}
