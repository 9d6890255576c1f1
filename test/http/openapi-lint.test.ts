/**
 * The served OpenAPI document passes a standard linter: Redocly CLI with its `recommended` rules,
 * no errors.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

describe('the OpenAPI document under Redocly CLI', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp(engineCases()[0]!, { VULNSCOPE_PUBLIC_URL: 'https://vulnscope.example.test' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-openapi-'));
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has no errors under the recommended rules', async () => {
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify((await t.get('/openapi.json', null)).body));
    const report = path.join(dir, 'report.json');
    const run = await promisify(execFile)(
      process.execPath,
      [REDOCLY, 'lint', file, '--extends', 'recommended', '--format', 'json'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((error: { stdout: string; stderr: string }) => error);
    fs.writeFileSync(report, run.stdout);
    const problems = (
      JSON.parse(run.stdout) as {
        problems: Array<{ severity: string; ruleId: string; message: string; location: Array<{ pointer: string }> }>;
      }
    ).problems;
    const errors = problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
  });
});
