import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCases } from '../support/engines.js';
import { startBackupApp, type BackupTestApp } from '../backup/support.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const WALK = path.join(import.meta.dirname, 'generated-client', 'cursor-walk.ts.txt');

/**
 * A client generated from the served /openapi.json by a standard generator (openapi-typescript's
 * types with openapi-fetch) compiles under `tsc --strict` and walks a cursor to the end.
 */
describe.each(engineCases().slice(0, 1))('a client generated from /openapi.json ($name)', (engine) => {
  let t: BackupTestApp;
  let base: string;
  let work: string;
  beforeAll(async () => {
    t = await startBackupApp(engine);
    const observations = Array.from({ length: 30 }, (_, i) => ({
      ip: `198.51.100.${i + 1}`,
      port: i % 3 === 0 ? 80 : 443,
    }));
    await t.ingest(observations);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    t.config.publicUrl = base;
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-generated-client-'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
    fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module' }));
  });
  afterAll(async () => {
    await t?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('compiles against the generated types and walks every match exactly once', async () => {
    const document = await (await fetch(`${base}/openapi.json`)).json();
    fs.writeFileSync(path.join(work, 'schema.d.ts'), astToString(await openapiTS(document)));
    fs.copyFileSync(WALK, path.join(work, 'cursor-walk.ts'));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const options = ['--strict', '--module', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--outDir', 'out'];
    await run(process.execPath, [tsc, ...options, 'cursor-walk.ts'], { cwd: work }).catch((error) => {
      throw new Error(`the generated client does not compile:\n${error.stdout}`);
    });
    const { stdout } = await run(process.execPath, [path.join(work, 'out', 'cursor-walk.js')], {
      env: { ...process.env, VULNSCOPE_URL: base, VULNSCOPE_TOKEN: t.token },
    });
    const walked = JSON.parse(stdout) as {
      services: string[];
      pages: number;
      total: number;
      badStatus: number;
      badErrors: string[];
    };
    expect(walked.total).toBe(20);
    expect(walked.services).toHaveLength(20);
    expect(new Set(walked.services).size).toBe(20);
    expect(walked.services.every((service) => service.endsWith(':443'))).toBe(true);
    expect(walked.pages).toBe(3);
    expect(walked.badStatus).toBe(400);
    expect(walked.badErrors[0]).toMatch(/parameter "port"/);
  });
});
